import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Forbidden, TooLarge, Unsupported } from '../../domain/errors.ts';
import type { DomainServices } from '../../domain/services.ts';
import type { User } from '../../domain/users/user.types.ts';
import {
  advertiseRefs,
  type GitService,
  inflateRequest,
  isGitService,
  isProbe,
  PROBE_LENGTH,
  receivePack,
  uploadPack,
  uploadPackInto,
} from '../../git/transport.ts';
import { viewerFromAuthorization } from '../auth/api-auth.ts';
import { viewerUser } from '../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../base-url.ts';
import { gitErrorHandler } from '../errors/git-errors.ts';
import { refuseNulInAddress } from '../plugins/nul-guard.ts';
import { answerAfter } from './answer-after.ts';
import { answerDirectly, bufferBody, canWriteDirectly } from './direct-answer.ts';
import { gitAccess } from './git-access.ts';
import { pushHintLines } from './push-hints.ts';
import { registerUnreadBodyHandling } from './unread-body.ts';

type RepoParams = { owner: string; name: string };

/** What smart HTTP uses: credentials, repositories and their protected refs, the push use case. */
export type SmartHttpDeps = {
  readonly services: Pick<
    DomainServices,
    'tokens' | 'ciTaskTokens' | 'repos' | 'protectedBranches' | 'pushHandling' | 'pullSuggestions'
  >;
  /** For the addresses in the lines a push prints. */
  readonly config: BaseUrlConfig;
};

/** Git's advertisements and results must never be cached by a proxy. */
const NO_CACHE = {
  'Cache-Control': 'no-cache, max-age=0, must-revalidate',
  Pragma: 'no-cache',
  Expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
} as const;

function noCache(reply: FastifyReply): FastifyReply {
  return reply.headers(NO_CACHE);
}

function isGzip(request: FastifyRequest): boolean {
  const encoding = request.headers['content-encoding'];
  return encoding === 'gzip' || encoding === 'x-gzip';
}

/** Bodies git can be given: as sent, or gzip (which Kiln undoes). */
function hasReadableEncoding(request: FastifyRequest): boolean {
  const encoding = request.headers['content-encoding'];
  return encoding === undefined || encoding === 'identity' || isGzip(request);
}

/** The body, read whole, of a request as long as git's probe; undefined for any other. */
async function probeSizedBody(request: FastifyRequest<{ Body: Readable }>) {
  if (request.headers['content-length'] !== String(PROBE_LENGTH) || isGzip(request)) return;
  return Buffer.concat(await request.body.toArray());
}

function gitProtocolHeader(request: FastifyRequest): string | undefined {
  const header = request.headers['git-protocol'];
  return typeof header === 'string' ? header : undefined;
}

/**
 * Smart HTTP at `/{owner}/{name}.git/…` (and without `.git`): authentication, access rules,
 * content types and cache headers here; the protocol itself streams through src/git/transport.
 * Request bodies are never parsed: they go to git as they arrive, but for git's four-byte probe,
 * which is answered here.
 */
export async function smartHttpPlugin(server: FastifyInstance, deps: SmartHttpDeps): Promise<void> {
  const { services } = deps;
  server.setErrorHandler(gitErrorHandler);
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  registerUnreadBodyHandling(server);
  server.addHook('preValidation', refuseNulInAddress);
  server.addHook('onRequest', async (request) => {
    request.viewer = await viewerFromAuthorization(services, request.headers.authorization);
  });

  server.get<{ Params: RepoParams; Querystring: { service?: string } }>(
    '/:owner/:name/info/refs',
    async (request, reply) => {
      const service = request.query.service;
      if (!isGitService(service)) {
        throw new Forbidden('Dumb HTTP is not supported; use a git client that speaks smart HTTP.');
      }
      const { repo } = await gitAccess(
        services.repos,
        request,
        request.params.owner,
        request.params.name,
        service === 'git-receive-pack',
      );
      const body = await advertiseRefs(services.repos.handle(repo), service, {
        gitProtocol: gitProtocolHeader(request),
      });
      return noCache(reply)
        .type(`application/x-git-${service.slice(4)}-advertisement`)
        .send(body);
    },
  );

  const post = (service: GitService) =>
    server.post<{ Params: RepoParams; Body: Readable }>(
      `/:owner/:name/${service}`,
      async (request, reply) => {
        const expected = `application/x-git-${service.slice(4)}-request`;
        if (request.headers['content-type'] !== expected) {
          throw new Unsupported(`Expected ${expected}.`);
        }
        if (!hasReadableEncoding(request)) {
          throw new Unsupported('Content-Encoding must be gzip or none.');
        }
        const write = service === 'git-receive-pack';
        const { repo } = await gitAccess(
          services.repos,
          request,
          request.params.owner,
          request.params.name,
          write,
        );
        const handle = services.repos.handle(repo);
        const options = { gitProtocol: gitProtocolHeader(request), gzip: isGzip(request) };
        const type = `application/x-git-${service.slice(4)}-result`;
        const small = await probeSizedBody(request);
        if (small && isProbe(small)) return noCache(reply).type(type).send(Buffer.alloc(0));
        const input = small ? Readable.from([small]) : request.body;
        if (!write) {
          let body = await bufferBody(input);
          if (body.whole && options.gzip) {
            // Inflated before git starts, so that a body that inflates beyond reason is refused
            // with a status rather than cut off in the middle of an answer.
            const plain = await inflateRequest(body.whole);
            if (!plain) throw new TooLarge('The request is too large once inflated.');
            body = { whole: plain, stream: Readable.from([plain]) };
            options.gzip = false;
          }
          if (body.whole && canWriteDirectly(request, reply)) {
            const send = await uploadPackInto(handle, body.stream, options);
            return answerDirectly(request, reply, { 'Content-Type': type, ...NO_CACHE }, send);
          }
          return noCache(reply)
            .type(type)
            .send(await uploadPack(handle, body.stream, options));
        }
        noCache(reply).type(type);

        const pusher = viewerUser(request.viewer) as User;
        const pack = await receivePack(handle, input, {
          ...options,
          protectedRefs: await services.protectedBranches.refs(repo),
        });
        const failed = (error: unknown) =>
          request.log.error({ err: error }, 'after-push work failed');
        // The repository's own record (its default branch above all: a first push of `develop`
        // must not leave HEAD on a missing `main`) is in step before the answer ends, so the
        // pusher never sees it stale, however soon it asks; the reactions (pulls, CI,
        // federation, housekeeping) may take long and run after the answer.
        const recorded = pack.result.then(({ changes, error }) => {
          if (error) request.log.warn({ err: error }, 'receive-pack ended early');
          return services.pushHandling.afterPush({ repo, pusher, changes }, failed).recorded;
        });
        // Gitea's lines after a push of a branch: where to open its pull, or the one open.
        const lines = async () => {
          const { changes } = await pack.result;
          const suggestions = await services.pullSuggestions.afterPush(repo, pusher, changes);
          return pushHintLines(suggestions, baseUrlOf(request, deps.config));
        };
        return reply.send(
          answerAfter(pack.output, () => recorded, { sideband: pack.sideband, lines }),
        );
      },
    );
  post('git-upload-pack');
  post('git-receive-pack');

  const dumb = async () => {
    throw new Forbidden('Dumb HTTP is not supported.');
  };
  server.get('/:owner/:name/HEAD', dumb);
  server.get('/:owner/:name/objects/*', dumb);
}
