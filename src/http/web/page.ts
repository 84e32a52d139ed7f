import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import type { DomainServices } from '../../domain/services.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { KILN_VERSION } from '../../version.ts';
import { viewerUser } from '../auth/viewer.ts';
import { isSecureOrigin } from '../base-url.ts';
import { csrfToken } from './csrf.ts';
import { takeFlash } from './flash.ts';
import { type Html, toChunks } from './html.ts';
import { layout, type PageContext } from './layout.ts';
import { ContentRenderer } from './render/content-renderer.ts';

/** What every page's frame uses: who is an admin, where the server is, how to render. */
export type PagesDeps = {
  readonly services: Pick<DomainServices, 'admins'>;
  readonly config: Pick<Config, 'baseUrl' | 'http' | 'render'>;
  /** Where the renderer's caches are declared (the process's registry). */
  readonly caches?: Pick<CacheRegistry, 'addEach'>;
};

/** Builds the frame context of a page and sends pages; one per web plugin instance. */
export class Pages {
  readonly #deps: PagesDeps;
  /** Markdown and highlighted code, off the main thread; its workers start on first use. */
  readonly renderer: ContentRenderer;

  constructor(deps: PagesDeps) {
    this.#deps = deps;
    this.renderer = new ContentRenderer(deps.config.render, deps.caches);
  }

  secure(request: FastifyRequest): boolean {
    return isSecureOrigin(request, this.#deps.config);
  }

  context(
    request: FastifyRequest,
    reply: FastifyReply,
    extra?: { searchQuery?: string },
  ): PageContext {
    const user = viewerUser(request.viewer);
    return {
      user,
      isAdmin: this.#deps.services.admins.isAdmin(user),
      csrf: csrfToken(request, reply, this.secure(request)),
      flash: takeFlash(request, reply),
      version: KILN_VERSION,
      path: request.url.length > 2000 ? '/' : request.url,
      ...(extra?.searchQuery !== undefined ? { searchQuery: extra.searchQuery } : {}),
    };
  }

  send(
    request: FastifyRequest,
    reply: FastifyReply,
    page: { title: string; body: Html | ((context: PageContext) => Html); status?: number },
  ): FastifyReply {
    const context = this.context(request, reply);
    const body = typeof page.body === 'function' ? page.body(context) : page.body;
    reply.status(page.status ?? 200).type('text/html; charset=utf-8');
    return sendMarkup(reply, layout(context, { title: page.title, body }));
  }
}

/**
 * Pages up to this size go out as one buffer. Copying the pieces together costs a memcpy; a
 * stream of pieces keeps a dozen objects alive per answer until the client has read it all,
 * which on a large page outlives young collections: under clients reading 400 KB pages it was
 * ten times the bytes promoted and ten times the full collections of the same page sent whole.
 * Past it, the copy itself would be the cost.
 */
const ONE_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Sends a whole document. It is encoded once here: a string would be measured for
 * Content-Length and encoded again by the socket, and pages of user content reach megabytes. A
 * page carrying encoded fragments (a highlighted file, a rendered README) is put together from
 * its pieces, the fragments' bytes as they are kept; one past `ONE_BUFFER_BYTES` goes out as
 * its pieces, never copied into one buffer of the page's size.
 */
export function sendMarkup(reply: FastifyReply, markup: Html): FastifyReply {
  const chunks = toChunks(markup);
  const [only] = chunks;
  if (chunks.length === 1 && only) return reply.send(only);
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  if (length <= ONE_BUFFER_BYTES) return reply.send(Buffer.concat(chunks, length));
  return reply.header('content-length', length).send(Readable.from(chunks));
}
