import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { Unavailable } from '../../domain/errors.ts';
import { registerPageGate } from './page-gate.ts';

let server: FastifyInstance | undefined;
afterEach(async () => {
  await server?.close();
});

/**
 * A server whose `/slow/:n` pages answer only when `finish(n)` is called; a turn lasts a minute
 * unless `turnMs` says otherwise.
 */
async function gated(
  limits: { maxActive: number; maxWaiting: number; maxWaitMs: number },
  turnMs = 60_000,
) {
  const app = Fastify();
  server = app;
  const pending = new Map<string, () => void>();
  const started: string[] = [];
  app.setErrorHandler((error, _request, reply) => {
    const seconds = error instanceof Unavailable ? error.details?.retryAfterSeconds : undefined;
    if (seconds !== undefined) reply.header('Retry-After', String(seconds));
    return reply.status(error instanceof Unavailable ? 503 : 500).send(String(error));
  });
  registerPageGate(app, limits, turnMs);
  app.get<{ Params: { n: string } }>('/slow/:n', async (request) => {
    started.push(request.params.n);
    await new Promise<void>((resolve) => pending.set(request.params.n, resolve));
    return `page ${request.params.n}`;
  });
  app.get('/assets/kiln.css', async () => 'css');
  app.post('/form', async () => 'posted');
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  const get = (path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${port}${path}`, init);
  const until = async (what: () => boolean) => {
    while (!what()) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return { get, started, until, finish: (n: string) => pending.get(n)?.() };
}

describe('the page gate', () => {
  it('builds pages a few at a time, queues a bounded number, and turns the rest away', async () => {
    const { get, started, until, finish } = await gated({
      maxActive: 1,
      maxWaiting: 1,
      maxWaitMs: 5000,
    });
    const first = get('/slow/1');
    await until(() => started.length === 1);
    // The queue holds one: of the next two, one waits and the other is answered at once.
    const next = [get('/slow/2'), get('/slow/3')];
    const turnedAway = await Promise.race(next);
    expect(turnedAway.status).toBe(503);
    expect(turnedAway.headers.get('retry-after')).toBe('5');
    // Stylesheets and forms do not wait for a turn.
    expect(await (await get('/assets/kiln.css')).text()).toBe('css');
    expect(await (await get('/form', { method: 'POST' })).text()).toBe('posted');
    expect(started).toEqual(['1']);
    finish('1');
    expect(await (await first).text()).toBe('page 1');
    await until(() => started.length === 2);
    const waited = started[1] as string;
    finish(waited);
    const answers = await Promise.all(next);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 503]);
  });

  it('gives the turn back when a waiting client gives up, and after a failure', async () => {
    const { get, started, until, finish } = await gated({
      maxActive: 1,
      maxWaiting: 4,
      maxWaitMs: 200,
    });
    const first = get('/slow/1');
    await until(() => started.length === 1);
    // Waited longer than allowed: 503, and the queue is not clogged by it.
    const late = await get('/slow/2');
    expect(late.status).toBe(503);
    finish('1');
    await first;
    const again = get('/slow/3');
    await until(() => started.includes('3'));
    finish('3');
    expect((await again).status).toBe(200);
  });

  it('gives the turn to the next page once a page has held it for its time', async () => {
    const { get, started, until, finish } = await gated(
      { maxActive: 1, maxWaiting: 4, maxWaitMs: 5000 },
      100,
    );
    const first = get('/slow/1');
    await until(() => started.length === 1);
    const second = get('/slow/2');
    const startedAt = performance.now();
    // The first page waits on something else: its turn passes on, it still finishes.
    await until(() => started.length === 2);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(50);
    finish('2');
    expect((await second).status).toBe(200);
    finish('1');
    expect((await first).status).toBe(200);
  });

  it('holds nothing back when the limit is 0', async () => {
    const { get, started, until, finish } = await gated({
      maxActive: 0,
      maxWaiting: 0,
      maxWaitMs: 1000,
    });
    const pages = ['1', '2', '3'].map((n) => get(`/slow/${n}`));
    await until(() => started.length === 3);
    for (const n of ['1', '2', '3']) finish(n);
    for (const page of pages) expect((await page).status).toBe(200);
  });
});
