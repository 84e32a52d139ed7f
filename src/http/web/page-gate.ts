import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Unavailable } from '../../domain/errors.ts';
import { ConcurrencyGate, type GateLimits, type Release } from '../../lib/concurrency-gate.ts';

/**
 * Admits page requests a few at a time (`service.render.max-concurrent-pages`; off by default).
 *
 * A page's work on the request thread grows with its content: a half-megabyte README or file is
 * milliseconds of building and encoding, and eight clients asking for such pages in a loop kept
 * that thread busy without pause, so a health check or an API call waited behind all of them.
 * Built a few at a time, pages still overlap their git and database waits, and everything else
 * the process serves finds the thread free between them. Waiting is bounded in number and time;
 * past either the answer is 503 with `Retry-After`. Stylesheets and scripts are not held.
 *
 * The turn is taken once the viewer is known and given back when the answer is handed to the
 * socket (or the request ends otherwise): writing out is the socket's work, not the thread's.
 *
 * It is off by default because a turn is held through a page's git and database waits too:
 * under eight clients on half-megabyte pages, two turns brought `/healthz` p99 from 21 to 15 ms
 * but cost ordinary pages a fifth of their throughput, and a page waiting on a slow git command
 * holds its turn all that time.
 */
export function registerPageGate(server: FastifyInstance, limits: GateLimits): void {
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
    turns.set(request, release);
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
