import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../app.ts';
import { Unavailable } from '../../domain/errors.ts';
import type { Repository } from '../../domain/repos/repo.types.ts';
import { type ArchiveFormat, createArchive } from '../../git/archive.ts';
import { ConcurrencyGate } from '../../lib/concurrency-gate.ts';
import { viewerFromAuthorization } from '../auth/api-auth.ts';
import { requireViewerScope } from '../auth/token-scope.ts';
import { type Viewer, viewerUser } from '../auth/viewer.ts';
import { sendErrorPage, webErrorHandler } from '../errors/web-errors.ts';
import type { Pages } from '../web/page.ts';
import { viewerFromSession } from '../web/session-cookie.ts';

/** What an archive URL's last part asks for: `{ref}.zip` or `{ref}.tar.gz`. */
export type ArchiveTarget = { readonly ref: string; readonly format: ArchiveFormat };

const EXTENSIONS: ReadonlyArray<readonly [string, ArchiveFormat]> = [
  ['.tar.gz', 'tar.gz'],
  ['.zip', 'zip'],
];

const CONTENT_TYPES: Record<ArchiveFormat, string> = {
  zip: 'application/zip',
  'tar.gz': 'application/gzip',
};

/**
 * Splits `feature/x.tar.gz` into ref `feature/x` and format `tar.gz`. The ref is everything
 * before the extension, slashes included; undefined when the extension is not one Kiln makes.
 */
export function parseArchiveTarget(tail: string): ArchiveTarget | undefined {
  for (const [extension, format] of EXTENSIONS) {
    if (tail.length > extension.length && tail.endsWith(extension)) {
      return { ref: tail.slice(0, -extension.length), format };
    }
  }
  return undefined;
}

/**
 * `attachment; filename="…"`. A ref may hold quotes, semicolons or non-ASCII letters, none of
 * which may go raw into a header; such names get an ASCII fallback and the RFC 5987 form.
 */
export function contentDisposition(fileName: string): string {
  if (/^[A-Za-z0-9._-]+$/.test(fileName)) return `attachment; filename="${fileName}"`;
  const fallback = fileName.replace(/[^A-Za-z0-9._-]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

// One gate per application (so per process): archives are not metered (SPEC.md), so their
// cost is bounded here instead, for the page and the API route alike.
const GATES = new WeakMap<App, ConcurrencyGate>();

function archiveGate(app: App): ConcurrencyGate {
  let gate = GATES.get(app);
  if (!gate) {
    const limits = app.config.archive;
    gate = new ConcurrencyGate({
      maxActive: limits.maxConcurrent,
      maxWaiting: limits.maxQueued,
      maxWaitMs: limits.queueTimeoutMs,
    });
    GATES.set(app, gate);
  }
  return gate;
}

/**
 * Streams a source archive of `repo` at `target.ref` as the response. The ref is resolved before
 * anything is sent, so an unknown one is a NotFound the caller's error handler answers; a client
 * that goes away stops git. At most `service.archive.max-concurrent` archives are built at once;
 * a few more wait briefly for a slot and the rest are `Unavailable` (503 with `Retry-After`).
 * The slot is held until the answer is finished or abandoned, since git runs until then.
 */
export async function sendArchive(
  app: App,
  reply: FastifyReply,
  repo: Repository,
  target: ArchiveTarget,
): Promise<FastifyReply> {
  const release = await archiveGate(app).enter();
  if (!release) {
    throw new Unavailable(
      'Too many archives are being built right now; please try again shortly.',
      {
        details: { retryAfterSeconds: Math.ceil(app.config.archive.queueTimeoutMs / 1000) },
      },
    );
  }
  try {
    const archive = await createArchive(app.git.catFiles, app.services.repos.handle(repo), {
      revision: target.ref,
      format: target.format,
    });
    archive.stream.once('close', release);
    reply.raw.once('close', release);
    return reply
      .type(CONTENT_TYPES[target.format])
      .header('Content-Disposition', contentDisposition(archive.fileName))
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cache-Control', 'private, no-cache')
      .send(archive.stream);
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * A token in the Authorization header (scripts, release tooling) or else the session cookie
 * (a browser following a download link).
 */
async function archiveViewer(app: App, request: FastifyRequest): Promise<Viewer> {
  if (request.headers.authorization) {
    return viewerFromAuthorization(app.services, request.headers.authorization);
  }
  return viewerFromSession(app.services, request);
}

type ArchiveParams = { owner: string; name: string; '*': string };

/**
 * `GET /repos/{owner}/{name}/archive/{ref}.zip|.tar.gz`: source archives for browsers and the
 * `zipball_url`/`tarball_url` of releases. Private repositories are 404 to whoever may not see
 * them; an unknown ref is 404 and an unknown extension 400. Errors are pages, as for any link.
 */
export async function archivePlugin(
  server: FastifyInstance,
  opts: { app: App; pages: Pages },
): Promise<void> {
  const { app, pages } = opts;
  server.setErrorHandler(webErrorHandler(pages));
  server.get<{ Params: ArchiveParams }>('/repos/:owner/:name/archive/*', async (request, reply) => {
    request.viewer = await archiveViewer(app, request);
    requireViewerScope(request.viewer, 'read', ['repository']);
    const { owner, name, '*': tail } = request.params;
    const { repo } = await app.services.repos.get(viewerUser(request.viewer), owner, name);
    const target = parseArchiveTarget(tail);
    if (!target) {
      return sendErrorPage(pages, request, reply, 400, 'Archives come as .zip or .tar.gz.');
    }
    return sendArchive(app, reply, repo, target);
  });
}
