import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Unavailable } from '../../domain/errors.ts';
import { ConcurrencyGate, type GateLimits, type Release } from '../../lib/concurrency-gate.ts';

/**
 * How long a page keeps its turn at most. Building even a half-megabyte page is a few
 * milliseconds of the request thread; a page that has held its turn longer is waiting on git or
 * the database, not building, and gives the turn back so that it does not hold the pages behind it.
 */
export const PAGE_TURN_MS = 50;

/**
 * Admits page requests a few at a time (`service.render.max-concurrent-pages`, 2 by default).
 *
 * A page's work on the request thread grows with its content: a half-megabyte README or file is
 * milliseconds of building and encoding, and eight clients asking for such pages in a loop keep
 * that thread busy without pause, so a health check, an API call or a push waited behind all of
 * them. Built a few at a time, pages still overlap their git and database waits, and everything
 * else the process serves finds the thread free between them: under that load `/healthz` p99
 * went from about 13 ms to 8 (docs/performance.md, render-load). Waiting is bounded in number
 * and time; past either the answer is 503 with `Retry-After`. Stylesheets and scripts are not held.
 *
 * The turn is taken once the viewer is known and given back when the answer is handed to the
 * socket (or the request ends otherwise; writing out is the socket's work, not the thread's), or
 * after `PAGE_TURN_MS`, whichever comes first: a page waiting on a slow git command does not
 * hold the others for longer than that. The price is throughput when pages alone saturate the
 * process: a turn is held through a page's short git and database waits too.
 */
export function registerPageGate(
  server: FastifyInstance,
  limits: GateLimits,
  turnMs = PAGE_TURN_MS,
): void {
  if (limits.maxActive <= 0) return;
  const gate = new ConcurrencyGate(limits);
  const turns = new WeakMap<FastifyRequest, Release>();
  const retryAfterSeconds = Math.max(1, Math.ceil(limits.maxWaitMs / 1000));

  server.addHook('onRequest', async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    if (request.url.startsWith('/assets/')) return;
    const release = await gate.enter();
    if (!release) {
      throw new Unavailable('Too many pages are being built; try again shortly.', {
        details: { retryAfterSeconds },
      });
    }
    const over = setTimeout(release, turnMs);
    turns.set(request, () => {
      clearTimeout(over);
      release();
    });
  });
  const giveBack = async (request: FastifyRequest) => {
    turns.get(request)?.();
    turns.delete(request);
  };
  server.addHook('onSend', async (request) => giveBack(request));
  server.addHook('onResponse', giveBack);
  server.addHook('onRequestAbort', giveBack);
  server.addHook('onTimeout', giveBack);
}
