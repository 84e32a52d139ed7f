import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Unavailable } from '../../domain/errors.ts';
import { ConcurrencyGate, type GateLimits, type Release } from '../../lib/concurrency-gate.ts';

/**
 * How long a page keeps its turn while other pages wait for one. Building even a half-megabyte
 * page is a few milliseconds of the request thread; a page that has held its turn longer is
 * waiting on git or the database, not building, and gives the turn back so that it does not hold
 * the pages behind it.
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
 * socket (or the request ends otherwise; writing out is the socket's work, not the thread's), or,
 * while others wait, once held `PAGE_TURN_MS`, whichever comes first: a page waiting on a slow git command does not
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
  const turns = new HeldTurns(turnMs);
  const retryAfterSeconds = Math.max(1, Math.ceil(limits.maxWaitMs / 1000));

  server.addHook('onRequest', async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return;
    if (request.url.startsWith('/assets/')) return;
    const entering = gate.enter();
    if (gate.waiting > 0) {
      // Full: turns held past their time make room now, and again while this request waits.
      turns.sweep();
      turns.sweepWhile(() => gate.waiting > 0);
    }
    const release = await entering;
    if (!release) {
      throw new Unavailable('Too many pages are being built; try again shortly.', {
        details: { retryAfterSeconds },
      });
    }
    // The next page starts on a later turn of the event loop, never in the same run of callbacks
    // as the page that gave the turn back: what arrived on the sockets meanwhile (an API call,
    // a health check) is read between the two.
    turns.hold(request, () => setImmediate(release));
  });
  const giveBack = async (request: FastifyRequest) => turns.giveBack(request);
  server.addHook('onSend', async (request) => giveBack(request));
  server.addHook('onResponse', giveBack);
  server.addHook('onRequestAbort', giveBack);
  server.addHook('onTimeout', giveBack);
}

/**
 * The turns pages hold, each given back by its page or, once held `turnMs`, by a sweep. Sweeps
 * run only while some request waits for a turn, every half turn (so a turn lasts between one and
 * one and a half `turnMs` when others wait, and as long as its page when none does): a timer
 * for each page, set and cleared, left the process 20–34 MB larger after 200,000 pages
 * (bench/metering.ts, the flood), where one only under contention leaves nothing.
 */
class HeldTurns {
  readonly #turnMs: number;
  readonly #held = new Map<FastifyRequest, { readonly release: Release; readonly at: number }>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(turnMs: number) {
    this.#turnMs = turnMs;
  }

  hold(request: FastifyRequest, release: Release): void {
    this.#held.set(request, { release, at: performance.now() });
  }

  giveBack(request: FastifyRequest): void {
    this.#held.get(request)?.release();
    this.#held.delete(request);
  }

  /** Gives back every turn held for `turnMs` or longer. */
  sweep(): void {
    const now = performance.now();
    for (const [request, turn] of this.#held) {
      if (now - turn.at >= this.#turnMs) this.giveBack(request);
    }
  }

  /** Sweeps every half turn for as long as `needed` says so. */
  sweepWhile(needed: () => boolean): void {
    if (this.#sweeper) return;
    this.#sweeper = setTimeout(() => {
      this.#sweeper = undefined;
      this.sweep();
      if (needed()) this.sweepWhile(needed);
    }, this.#turnMs / 2);
    this.#sweeper.unref();
  }
}
