import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Invalid } from '../../domain/errors.ts';
import type { BatchAnswer } from '../../domain/lfs/lfs.service.ts';
import type { DomainServices } from '../../domain/services.ts';
import { type BaseUrlConfig, baseUrlOf } from '../base-url.ts';
import { prepareGitEdge } from './git-edge.ts';
import { sendObject } from './lfs-download.ts';
import { type LfsAuthServices, lfsAuthentication } from './lfs-grant-auth.ts';
import { registerLfsLockRoutes } from './lfs-locks.routes.ts';
import { LFS_JSON, lfsErrorHandler, readLfsJson } from './lfs-wire.ts';

type RepoParams = { owner: string; name: string };
type ObjectParams = RepoParams & { oid: string };

/** What the LFS API uses: credentials, repositories, objects and locks. */
export type LfsDeps = {
  readonly services: Pick<DomainServices, 'repos' | 'lfs' | 'lfsLocks'> & LfsAuthServices;
  /** For the addresses of the actions a batch answers. */
  readonly config: BaseUrlConfig;
};

/**
 * Downloads are bytes anyone may have pushed (an HTML page, a script) served from Kiln's own
 * origin: nothing a browser opens at an object's address may be sniffed into a document or run.
 */
const DOWNLOAD_POLICY = "default-src 'none'; sandbox";

/** How long the actions of a batch answer are good for, as the client is told. */
const ACTIONS_EXPIRE_SECONDS = 3600;

/**
 * The Git LFS API at `/{owner}/{name}.git/info/lfs/…` (and without `.git`): the batch request,
 * the basic transfer's object uploads and downloads, verify, and locks. Access is git's own
 * (git-access.ts): readers download, writers upload and lock, everyone else gets what a
 * missing repository gets; a grant from `git-lfs-authenticate` over SSH gives its key's access
 * to its one repository and operation (lfs-grant-auth.ts). An action's `href` is an address on
 * this server and its `header` repeats the caller's own Authorization, so the transfer is
 * checked exactly like the batch.
 */
export async function lfsPlugin(server: FastifyInstance, deps: LfsDeps): Promise<void> {
  const { services } = deps;
  const auth = lfsAuthentication(services);
  prepareGitEdge(server, services, lfsErrorHandler, auth.viewerOf);
  const access = (request: FastifyRequest<{ Params: RepoParams }>, write: boolean) =>
    auth.access(request, request.params.owner, request.params.name, write);

  server.post<{ Params: RepoParams; Body: Readable }>(
    '/:owner/:name/info/lfs/objects/batch',
    async (request, reply) => {
      const body = await readLfsJson(request.body);
      const operation = body.operation;
      if (operation !== 'upload' && operation !== 'download') {
        throw new Invalid('The operation must be "upload" or "download".');
      }
      if (!Array.isArray(body.objects)) throw new Invalid('The request names no objects.');
      const objects = body.objects.map((o: unknown) =>
        typeof o === 'object' && o !== null ? (o as { oid?: unknown; size?: unknown }) : {},
      );
      const { repo } = await access(request, operation === 'upload');
      const answers = await services.lfs.batch(repo, operation, objects);
      const base = `${baseUrlOf(request, deps.config)}/${encodeURIComponent(repo.owner.handle)}/${encodeURIComponent(repo.name)}.git/info/lfs`;
      const authorization = request.headers.authorization;
      const header = authorization ? { Authorization: authorization } : undefined;
      const expiresIn = auth.grantSecondsLeft(request) ?? ACTIONS_EXPIRE_SECONDS;
      const action = (href: string) => ({
        href,
        ...(header ? { header } : {}),
        expires_in: expiresIn,
      });
      const wire = (answer: BatchAnswer) => {
        const { oid, size } = answer;
        if ('error' in answer) {
          const code = { missing: 404, invalid: 422, 'too-large': 422 }[answer.error];
          return { oid, size, error: { code, message: answer.message } };
        }
        if (answer.action === 'none') return { oid, size };
        const object = action(`${base}/objects/${oid}`);
        const actions =
          answer.action === 'download'
            ? { download: object }
            : { upload: object, verify: action(`${base}/verify`) };
        return { oid, size, authenticated: true, actions };
      };
      return reply
        .type(LFS_JSON)
        .send({ transfer: 'basic', objects: answers.map(wire), hash_algo: 'sha256' });
    },
  );

  server.put<{ Params: ObjectParams; Body: Readable }>(
    '/:owner/:name/info/lfs/objects/:oid',
    async (request, reply) => {
      const { repo } = await access(request, true);
      const length = request.headers['content-length'];
      const declared = length === undefined ? undefined : Number(length);
      await services.lfs.upload(repo, request.params.oid, request.body, declared);
      return reply.status(200).type(LFS_JSON).send({});
    },
  );

  server.get<{ Params: ObjectParams }>(
    '/:owner/:name/info/lfs/objects/:oid',
    async (request, reply) => {
      const { repo } = await access(request, false);
      const start = rangeStart(request.headers.range);
      const { size, copy } = await services.lfs.locate(repo, request.params.oid);
      reply
        .type('application/octet-stream')
        .header('Cache-Control', 'no-store')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Security-Policy', DOWNLOAD_POLICY);
      if (start > 0) {
        if (start >= size) {
          return reply.status(416).header('Content-Range', `bytes */${size}`).send();
        }
        reply.status(206).header('Content-Range', `bytes ${start}-${size - 1}/${size}`);
      }
      reply.header('Content-Length', String(size - start));
      // A stream keeps the length given above; Node writes no body to a HEAD.
      if (request.method === 'HEAD') return reply.send(Readable.from([]));
      return sendObject(request, reply, (sink) => copy(start, sink));
    },
  );

  server.post<{ Params: RepoParams; Body: Readable }>(
    '/:owner/:name/info/lfs/verify',
    async (request, reply) => {
      const body = await readLfsJson(request.body);
      const { repo } = await access(request, true);
      await services.lfs.verify(repo, body.oid, body.size);
      return reply.type(LFS_JSON).send({});
    },
  );

  registerLfsLockRoutes(server, { locks: services.lfsLocks, access });
}

/** Where a `Range: bytes=N-` asks a download to resume; 0 for any other header. */
function rangeStart(range: string | undefined): number {
  const match = range === undefined ? null : /^bytes=(\d{1,15})-$/.exec(range);
  return match ? Number(match[1]) : 0;
}
