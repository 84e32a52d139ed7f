import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type PooledProcess, ProcessPool } from './process-pool.ts';
import type { RepoHandle } from './repo-paths.ts';
import { makeTestRepo, type TempDir } from './test-support.ts';

/** A process that finishes closing only when told to, or when killed. */
class StuckProcess implements PooledProcess {
  readonly key: string;
  usable = true;
  pendingCount = 0;
  closeCalls = 0;
  killed = false;
  #exited!: () => void;
  readonly #exit = new Promise<void>((resolve) => {
    this.#exited = resolve;
  });

  constructor(repo: RepoHandle) {
    this.key = repo.key;
  }

  close(): Promise<void> {
    this.closeCalls += 1;
    this.usable = false;
    return this.#exit;
  }

  async kill(): Promise<void> {
    this.killed = true;
    this.#exited();
  }
}

let tmp: TempDir;
let repo: RepoHandle;
let started: StuckProcess[];
let pool: ProcessPool<StuckProcess>;

beforeEach(async () => {
  ({ tmp, repo } = await makeTestRepo());
  started = [];
  pool = new ProcessPool((handle) => {
    const process = new StuckProcess(handle);
    started.push(process);
    return process;
  });
});
afterEach(async () => {
  await pool.closeAll(10);
  await tmp.remove();
});

describe('ProcessPool.closeAll', () => {
  it('kills a process that was already closing when shutdown began', async () => {
    await pool.use(repo, async () => undefined);
    const evicted = pool.evict(repo);
    expect(pool.size).toBe(0);
    await pool.closeAll(20);
    await evicted;
    expect(started).toHaveLength(1);
    expect(started[0]?.killed).toBe(true);
  });

  it('asks a process to close once however often it is retired', async () => {
    await pool.use(repo, async () => undefined);
    const first = pool.evict(repo);
    await pool.use(repo, async () => undefined);
    expect(started).toHaveLength(2);
    await pool.closeAll(20);
    await first;
    expect(started.map((process) => process.closeCalls)).toEqual([1, 1]);
    expect(started.every((process) => process.killed)).toBe(true);
  });

  it('refuses work once closed', async () => {
    await pool.closeAll(10);
    await expect(pool.use(repo, async () => undefined)).rejects.toThrow(/closed/);
  });
});

describe('ProcessPool idle closing', () => {
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  let idlePool: ProcessPool<StuckProcess>;
  const made: StuckProcess[] = [];
  beforeEach(() => {
    made.length = 0;
    idlePool = new ProcessPool(
      (handle) => {
        const process = new StuckProcess(handle);
        made.push(process);
        return process;
      },
      { idleMs: 200 },
    );
  });
  afterEach(() => idlePool.closeAll(10));

  it('keeps a process through a use longer than the idle time, then closes it once idle', async () => {
    await idlePool.use(repo, async () => undefined);
    await idlePool.use(repo, () => wait(500));
    expect(made).toHaveLength(1);
    expect(made[0]?.closeCalls).toBe(0);
    await wait(600);
    expect(made[0]?.closeCalls).toBe(1);
    expect(idlePool.size).toBe(0);
  });

  it('counts idle time from the end of the last use', async () => {
    for (let use = 0; use < 6; use++) {
      await idlePool.use(repo, async () => undefined);
      await wait(50);
    }
    expect(made).toHaveLength(1);
    expect(made[0]?.closeCalls).toBe(0);
    await wait(600);
    expect(made[0]?.closeCalls).toBe(1);
  });
});
