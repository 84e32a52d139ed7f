import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {
  ArchiveFormat,
  ArchiveTarget,
  OpenArchive,
} from '../../domain/code/archive.service.ts';
import type { DomainServices } from '../../domain/services.ts';
import { viewerFromAuthorization } from '../auth/api-auth.ts';
import { requireViewerScope } from '../auth/token-scope.ts';
import { type Viewer, viewerUser } from '../auth/viewer.ts';
import { sendErrorPage, webErrorHandler } from '../errors/web-errors.ts';
import type { Pages } from '../web/page.ts';
import { viewerFromSession } from '../web/session-cookie.ts';

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

/**
 * Streams `archive` as the response; the build slot is given back when the answer is finished
 * or abandoned (a client that goes away stops git).
 */
export function sendArchive(reply: FastifyReply, archive: OpenArchive): FastifyReply {
  reply.raw.once('close', archive.release);
  return reply
    .type(CONTENT_TYPES[archive.format])
    .header('Content-Disposition', contentDisposition(archive.fileName))
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'private, no-cache')
    .send(archive.stream);
}

/**
 * A token in the Authorization header (scripts, release tooling) or else the session cookie
 * (a browser following a download link).
 */
async function archiveViewer(
  services: ArchiveRouteDeps['services'],
  request: FastifyRequest,
): Promise<Viewer> {
  if (request.headers.authorization) {
    return viewerFromAuthorization(services, request.headers.authorization);
  }
  return viewerFromSession(services, request);
}

type ArchiveParams = { owner: string; name: string; '*': string };

/** What the archive download route uses. */
export type ArchiveRouteDeps = {
  readonly services: Pick<DomainServices, 'archives' | 'tokens' | 'ciTaskTokens' | 'sessions'>;
  readonly pages: Pages;
};

/**
 * `GET /repos/{owner}/{name}/archive/{ref}.zip|.tar.gz`: source archives for browsers and the
 * `zipball_url`/`tarball_url` of releases. Private repositories are 404 to whoever may not see
 * them; an unknown ref is 404 and an unknown extension 400. Errors are pages, as for any link.
 */
export async function archivePlugin(
  server: FastifyInstance,
  deps: ArchiveRouteDeps,
): Promise<void> {
  const { services, pages } = deps;
  server.setErrorHandler(webErrorHandler(pages));
  server.get<{ Params: ArchiveParams }>('/repos/:owner/:name/archive/*', async (request, reply) => {
    request.viewer = await archiveViewer(services, request);
    requireViewerScope(request.viewer, 'read', ['repository']);
    const { owner, name, '*': tail } = request.params;
    const repo = await services.archives.readable(viewerUser(request.viewer), owner, name);
    const target = parseArchiveTarget(tail);
    if (!target) {
      return sendErrorPage(pages, request, reply, 400, 'Archives come as .zip or .tar.gz.');
    }
    return sendArchive(reply, await services.archives.open(repo, target));
  });
}
