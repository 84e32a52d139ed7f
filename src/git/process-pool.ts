import { Unavailable } from '../domain/errors.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

/** A long-lived git process serving one repository. */
export interface PooledProcess {
  /** The repository's key (RepoHandle.key). */
  readonly key: string;
  /** Whether new work may be sent: running and not asked to close. */
  readonly usable: boolean;
  /** Work sent and not yet answered; an idle process has none. */
  readonly pendingCount: number;
  /** Finishes what was asked, then exits. */
  close(): Promise<void>;
  /** Ends the process at once. */
  kill(): Promise<void>;
}

export interface ProcessPoolOptions {
  /** Close a repository's process after this long without use. Default 60 s. */
  idleMs?: number;
  /** At most this many processes; the least recently used is closed to make room. Default 32. */
  maxProcesses?: number;
  /**
   * What a process takes in once, when it starts, from files it never reads again (cat-file
   * reads a repository's alternates once): a process whose repository no longer gives the same
   * answer is replaced before its next use, whoever changed the files (this process, another
   * replica, a restore). Read synchronously on every use of a process that started with one,
   * so a stat at most; undefined means nothing to watch.
   */
  startState?: (repo: RepoHandle) => string | undefined;
}

/** Starts a repository's process; `onExit` must be called once when it is gone, however. */
export type StartProcess<P> = (repo: RepoHandle, onExit: (process: P) => void) => P;

/**
 * Long-lived processes, at most one per repository, reused across requests: a repository's
 * directory is verified before its process starts, a process that died or is closing is replaced
 * on the next use, idle ones are closed, the least recently used one makes room at the cap, and
 * `closeAll` ends them all at shutdown.
 *
 * @example
 *   const pool = new ProcessPool((repo, onExit) => new CatFileProcess(repo, onExit));
 *   const info = await pool.use(repo, (process) => process.request('info', 'HEAD'));
 */
export class ProcessPool<P extends PooledProcess> {
  readonly #start: StartProcess<P>;
  readonly #idleMs: number;
  readonly #maxProcesses: number;
  readonly #startState: ((repo: RepoHandle) => string | undefined) | undefined;
  /** What each process took in at its start (see `startState`). */
  readonly #states = new WeakMap<P, string>();
  /** Map order is recency order: a process is moved to the end whenever it is used. */
  readonly #processes = new Map<string, P>();
  /** The key last moved to the end, which needs no moving: most uses are of the same one. */
  #newest: string | undefined;
  /**
   * One timer per process, made once and restarted after each use: a timer made and cleared on
   * every use outlived young collections and left garbage for the full ones, request after
   * request. It finds its process busy when a use is still running, and leaves it be.
   */
  readonly #idleTimers = new Map<P, NodeJS.Timeout>();
  /** Uses running on each process (`use` between acquiring and its work's end). */
  readonly #inUse = new Map<P, number>();
  /** Processes asked to close (idle, evicted, displaced) and not gone yet, with their exits. */
  readonly #retiring = new Map<P, Promise<void>>();
  #closed = false;

  constructor(start: StartProcess<P>, options: ProcessPoolOptions = {}) {
    this.#start = start;
    this.#idleMs = options.idleMs ?? 60_000;
    this.#maxProcesses = Math.max(1, options.maxProcesses ?? 32);
    this.#startState = options.startState;
  }

  /** Number of running processes. */
  get size(): number {
    return this.#processes.size;
  }

  /** The process serving a repository, if one runs (diagnostics and tests). */
  peek(repo: RepoHandle): P | undefined {
    return this.#processes.get(repo.key);
  }

  /** Runs `work` on the repository's process, starting one when none is usable. */
  async use<T>(repo: RepoHandle, work: (process: P) => Promise<T>): Promise<T> {
    const process = await this.#acquire(repo);
    this.#inUse.set(process, (this.#inUse.get(process) ?? 0) + 1);
    try {
      return await work(process);
    } finally {
      const left = (this.#inUse.get(process) ?? 1) - 1;
      if (left > 0) this.#inUse.set(process, left);
      else this.#inUse.delete(process);
      this.#scheduleIdle(process);
    }
  }

  /** Closes the repository's process, e.g. before the repository is deleted. */
  async evict(repo: RepoHandle): Promise<void> {
    const process = this.#processes.get(repo.key);
    if (process) await this.#retire(process);
  }

  /**
   * Closes every process and refuses new work; one that does not finish in `graceMs` is killed,
   * including those already closing before the call (an evicted process stuck on its last work
   * must not hold shutdown up).
   */
  async closeAll(graceMs = 5_000): Promise<void> {
    this.#closed = true;
    for (const process of [...this.#processes.values()]) void this.#retire(process);
    const timer = setTimeout(() => {
      for (const process of this.#retiring.keys()) void process.kill();
    }, graceMs);
    await Promise.all(this.#retiring.values());
    clearTimeout(timer);
  }

  async #acquire(repo: RepoHandle): Promise<P> {
    if (this.#closed) throw new Unavailable('the git process pool is closed');
    const existing = this.#current(repo);
    if (existing) return existing;
    await requireRepository(repo);
    // closeAll may have run meanwhile: a process started now would outlive the pool.
    if (this.#closed) throw new Unavailable('the git process pool is closed');
    const raced = this.#current(repo);
    if (raced) return raced;
    while (this.#processes.size >= this.#maxProcesses) {
      const [oldest] = this.#processes.values();
      if (!oldest) break;
      void this.#retire(oldest);
    }
    // Read before the start: a change racing with it makes the next use restart, never miss.
    const state = this.#startState?.(repo);
    const process = this.#start(repo, (gone) => this.#forget(gone));
    if (state !== undefined) this.#states.set(process, state);
    this.#processes.set(repo.key, process);
    this.#newest = repo.key;
    return process;
  }

  /** The repository's usable process, unless what it read at its start has changed since. */
  #current(repo: RepoHandle): P | undefined {
    const process = this.#touch(repo.key);
    if (!process) return undefined;
    const started = this.#states.get(process);
    if (started === undefined || started === this.#startState?.(repo)) return process;
    void this.#retire(process);
    return undefined;
  }

  /** The usable process for `key`, moved to the most-recent end; drops one that is not usable. */
  #touch(key: string): P | undefined {
    const process = this.#processes.get(key);
    if (!process) return undefined;
    if (!process.usable) {
      this.#forget(process);
      return undefined;
    }
    if (this.#newest !== key) {
      this.#processes.delete(key);
      this.#processes.set(key, process);
      this.#newest = key;
    }
    return process;
  }

  #scheduleIdle(process: P): void {
    if (process.pendingCount > 0 || !process.usable || this.#idleMs <= 0) return;
    const timer = this.#idleTimers.get(process);
    if (timer) {
      timer.refresh();
      return;
    }
    const made = setTimeout(() => {
      // Busy when the timer ran out: the use still running restarts it when it ends, and work
      // sent outside a use is given another period.
      if (this.#inUse.has(process)) return;
      if (process.pendingCount > 0) made.refresh();
      else void this.#retire(process);
    }, this.#idleMs);
    made.unref();
    this.#idleTimers.set(process, made);
  }

  #retire(process: P): Promise<void> {
    this.#forget(process);
    const retiring = this.#retiring.get(process);
    if (retiring) return retiring;
    // However it ends, it is gone: its exit is for waiting, not for errors.
    const exit = process.close().then(
      () => undefined,
      () => undefined,
    );
    void exit.then(() => this.#retiring.delete(process));
    this.#retiring.set(process, exit);
    return exit;
  }

  #forget(process: P): void {
    if (this.#processes.get(process.key) === process) this.#processes.delete(process.key);
    const timer = this.#idleTimers.get(process);
    if (timer) clearTimeout(timer);
    this.#idleTimers.delete(process);
    this.#inUse.delete(process);
  }
}
