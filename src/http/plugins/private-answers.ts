import type { FastifyInstance } from 'fastify';
import type { Viewer } from '../auth/viewer.ts';

/** What every answer to a signed-in caller carries (at the front of its Cache-Control). */
export const PRIVATE_NO_STORE = 'private, no-store';

// Freshness directives mean nothing once nothing may be stored; they would only confuse.
const DROPPED = /^(?:public|private|no-store|max-age=.*|s-maxage=.*|immutable|stale-.*)$/;

/**
 * The Cache-Control an answer must go out with. The invariant: whatever is served to a caller
 * who is signed in (session, token or basic auth) carries `private, no-store`, because only such
 * a caller can be shown a private repository, a private diff or account pages, and a shared
 * cache (a proxy, a CDN) must never hand those to someone else. An answer the route declared
 * `public` (static assets, the same bytes for everyone) keeps its header, and anonymous answers
 * keep whatever their route chose. Other directives of the route (git's `no-cache`) are kept
 * after the two.
 */
export function cacheControlFor(viewer: Viewer, current: string | undefined): string | undefined {
  if (viewer.kind === 'anonymous') return current;
  const directives = (current ?? '')
    .split(',')
    .map((directive) => directive.trim().toLowerCase())
    .filter((directive) => directive !== '');
  if (directives.includes('public')) return current;
  const kept = directives.filter((directive) => !DROPPED.test(directive));
  return [PRIVATE_NO_STORE, ...kept].join(', ');
}

/**
 * Applies `cacheControlFor` to every answer of the server, pages, REST, git and errors alike:
 * one hook decides, so no route can forget. Answers written past Fastify (a hijacked git answer)
 * call `cacheControlFor` themselves. Register before any route.
 */
export function registerPrivateAnswers(server: FastifyInstance): void {
  server.addHook('onSend', (request, reply, payload, done) => {
    const header = reply.getHeader('cache-control');
    const current = typeof header === 'string' ? header : undefined;
    const wanted = cacheControlFor(request.viewer, current);
    if (wanted !== undefined && wanted !== current) reply.header('Cache-Control', wanted);
    done(null, payload);
  });
}
