import { afterEach, describe, expect, it } from 'vitest';
import { PoolFull, WorkerPool } from '../../../lib/worker-pool.ts';
import type { RenderJob } from './render-job.ts';

const WORKER = new URL('./render-worker.ts', import.meta.url);
const maxOutput = 1_000_000;
const markdown = (text: string): RenderJob => ({
  kind: 'markdown',
  text,
  base: undefined,
  maxOutput,
});
/** highlight.js's Perl grammar backtracks on a run of `s` for far longer than any budget here. */
const endless: RenderJob = {
  kind: 'highlight',
  fileName: 'x.pl',
  text: 's'.repeat(100_000),
  maxOutput,
};

let pool: WorkerPool<RenderJob, string | null> | undefined;
const make = (options: { timeoutMs?: number; queueLimit?: number; idleMs?: number } = {}) => {
  pool = new WorkerPool<RenderJob, string | null>({
    file: WORKER,
    size: 1,
    timeoutMs: options.timeoutMs ?? 2000,
    queueLimit: options.queueLimit ?? 4,
    ...(options.idleMs === undefined ? {} : { idleMs: options.idleMs }),
  });
  return pool;
};
afterEach(async () => {
  await pool?.close();
});

describe('WorkerPool', () => {
  it('terminates a worker past its budget and answers the next job with a fresh one', async () => {
    const p = make({ timeoutMs: 200 });
    expect(await p.run(endless)).toEqual({ kind: 'timeout' });
    expect(await p.run(markdown('*a*'))).toEqual({ kind: 'done', output: '<p><em>a</em></p>\n' });
  });

  it('refuses work beyond its queue at once', async () => {
    const p = make({ timeoutMs: 300, queueLimit: 1 });
    const first = p.run(endless);
    expect(() => p.run(markdown('b'))).toThrow(PoolFull);
    expect((await first).kind).toBe('timeout');
  });

  it('settles waiting and running jobs as closed when closed', async () => {
    const p = make();
    const running = p.run(endless);
    const waiting = p.run(markdown('c'));
    await p.close();
    expect(await running).toEqual({ kind: 'closed' });
    expect(await waiting).toEqual({ kind: 'closed' });
    expect(await p.run(markdown('d'))).toEqual({ kind: 'closed' });
  });

  it('stops a worker that stays idle, and starts one again when needed', async () => {
    const p = make({ idleMs: 100 });
    await p.run(markdown('e'));
    expect(p.workers).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(p.workers).toBe(0);
    expect((await p.run(markdown('f'))).kind).toBe('done');
  });
});
