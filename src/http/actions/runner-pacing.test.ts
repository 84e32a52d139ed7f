/**
 * Refused runner calls and log uploads wait their turn, on a real port: refusals over the whole
 * server, uploads per runner, both before the body is read. Paces are small here so that a test
 * sees them within a second.
 */
import { request } from 'node:http';
import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFound, Unauthenticated } from '../../domain/errors.ts';
import { registerActionsRoutes } from './actions.routes.ts';
import { UNREGISTERED_RUNNER_MESSAGE } from './connect-errors.ts';
import { RunnerPacing } from './runner-pacing.ts';
import type { RunnerRecord, RunnerRegistry } from './runner-registry.ts';

const REFUSALS = { perSecond: 20, burst: 4, maxWaitMs: 300 };
const UPLOADS = { perSecond: 400_000, burst: 100_000, maxWaitMs: 600 };

/** Two runners, `a` and `b`, whose token is their name twice; nothing can register. */
const registry: RunnerRegistry = {
  register: async () => {
    throw new Unauthenticated('no registration here');
  },
  declare: async () => {
    throw new Unauthenticated('no declaration here');
  },
  authenticate: async (uuid, token) => {
    if (uuid !== 'a' && uuid !== 'b') throw new NotFound('no such runner');
    if (token !== uuid + uuid) throw new Unauthenticated('wrong token');
    const record: RunnerRecord = {
      id: `id-${uuid}`,
      uuid,
      name: uuid,
      version: 'v1',
      labels: [],
      ephemeral: false,
      status: 'idle',
    };
    return record;
  },
};

let server: FastifyInstance;
let base: string;
beforeAll(async () => {
  server = Fastify();
  registerActionsRoutes(server, { runners: registry, pacing: new RunnerPacing(REFUSALS, UPLOADS) });
  base = await server.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => server.close());

type Answer = { status: number; body: string; at: number };

/** POSTs `bytes` (with Content-Length unless `chunked`); status 0 when no answer came. */
function post(
  procedure: string,
  headers: Record<string, string>,
  bytes: number,
  chunked = false,
): Promise<Answer> {
  return new Promise((resolve) => {
    const failed = () => resolve({ status: 0, body: '', at: performance.now() });
    const outgoing = request(
      `${base}/api/actions/runner.v1.RunnerService/${procedure}`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/proto',
          ...(chunked ? {} : { 'content-length': String(bytes) }),
          ...headers,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body, at: performance.now() }),
        );
        response.on('error', failed);
      },
    );
    outgoing.on('error', failed);
    outgoing.end(Buffer.alloc(bytes));
  });
}

/** Runner headers that authenticate nobody: missing, an unknown runner, a wrong token. */
const refusedHeaders = fc.oneof(
  fc.constant({}),
  fc.record({ 'x-runner-uuid': fc.constantFrom('a', 'z'), 'x-runner-token': fc.constant('bad') }),
  fc.record({ 'x-runner-uuid': fc.constant('nobody'), 'x-runner-token': fc.constant('xx') }),
);

describe('runner pacing', () => {
  it('answers refused calls no faster than the pace, and drops what would wait too long (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(fc.constantFrom('FetchTask', 'UpdateTask', 'UpdateLog'), refusedHeaders),
          { minLength: 1, maxLength: 24 },
        ),
        async (calls) => {
          // An idle pace starts with its whole burst: what the last run took is paid off by then.
          await new Promise((resolve) => setTimeout(resolve, 600));
          const started = performance.now();
          const answers = await Promise.all(
            calls.map(([procedure, headers]) => post(procedure, headers, 64 * 1024)),
          );
          const answered = answers.filter((answer) => answer.status !== 0);
          for (const answer of answered) {
            expect(answer.status).toBe(401);
            expect(JSON.parse(answer.body).message).toBe(UNREGISTERED_RUNNER_MESSAGE);
          }
          // The burst is answered, and nothing past the longest wait is.
          expect(answered.length).toBeGreaterThanOrEqual(Math.min(calls.length, REFUSALS.burst));
          const most = REFUSALS.burst + (REFUSALS.perSecond * REFUSALS.maxWaitMs) / 1000 + 1;
          expect(answered.length).toBeLessThanOrEqual(most);
          const last = Math.max(...answered.map((answer) => answer.at)) - started;
          expect(answered.length).toBeLessThanOrEqual(
            REFUSALS.burst + (REFUSALS.perSecond * last) / 1000 + 1,
          );
        },
      ),
      // And the plain case: two dozen anonymous calls at once.
      { numRuns: 6, examples: [[Array(24).fill(['FetchTask', {}])]] },
    );
  }, 30_000);

  it('holds one runner’s log uploads to its pace, declared or not, and no other runner’s', async () => {
    const a = { 'x-runner-uuid': 'a', 'x-runner-token': 'aa' };
    const b = { 'x-runner-uuid': 'b', 'x-runner-token': 'bb' };
    const started = performance.now();
    // 100 KB of burst, then 400 KB a second: 300 KB more waits about 0.75 s.
    for (let call = 0; call < 3; call++) {
      const answer = await post('UpdateLog', a, 100_000, call === 1);
      expect(answer.status).not.toBe(429);
    }
    const fromB = performance.now();
    await post('UpdateLog', b, 100_000);
    expect(performance.now() - fromB).toBeLessThan(200);
    await post('UpdateLog', a, 100_000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(700);
    // More than the longest wait is refused at once, unread.
    const refused = await post('UpdateLog', a, 400_000);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).code).toBe('resource_exhausted');
  });
});
