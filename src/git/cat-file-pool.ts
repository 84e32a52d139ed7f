import { Invalid } from '../domain/errors.ts';
import {
  CatFileGone,
  CatFileProcess,
  type ObjectData,
  type ObjectInfo,
} from './cat-file-process.ts';
import { requireRepository } from './repo-exists.ts';
import type { RepoHandle } from './repo-paths.ts';

export type { ObjectData, ObjectInfo } from './cat-file-process.ts';

export interface CatFilePoolOptions {
  /** Close a repository's process after this long without requests. Default 60 s. */
  idleMs?: number;
  /** At most this many processes; the least recently used is closed to make room. Default 32. */
  maxProcesses?: number;
  /** Fail a request (and restart its process) when git does not answer within this. Default 30 s. */
  requestTimeoutMs?: number;
}

/**
 * Long-lived `cat-file --batch-command` processes, one per repository, reused across requests.
 * A repository's directory is verified before its process starts (cat-file misbehaves on a
 * non-repository), a process that dies is replaced on the next request and the requests it
 * dropped are retried once, idle processes are closed, and `closeAll` ends them all at shutdown.
 *
 * @example
 *   const pool = new CatFilePool({ idleMs: 30_000, maxProcesses: 16 });
 *   const head = await pool.info(repo, 'main^{commit}');
 */
export class CatFilePool {
  private readonly idleMs: number;
  private readonly maxProcesses: number;
  private readonly requestTimeoutMs: number;
  /** Map order is recency order: a process is moved to the end whenever it is used. */
  private readonly processes = new Map<string, CatFileProcess>();
  private readonly idleTimers = new Map<CatFileProcess, NodeJS.Timeout>();
  private readonly closing = new Set<Promise<void>>();
  private closed = false;

  constructor(options: CatFilePoolOptions = {}) {
    this.idleMs = options.idleMs ?? 60_000;
    this.maxProcesses = Math.max(1, options.maxProcesses ?? 32);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  }

  /** Number of running processes. */
  get size(): number {
    return this.processes.size;
  }

  /** Type, size and full id of an object expression (`<sha>`, `main^{commit}`, `<sha>:path`), or undefined. */
  async info(repo: RepoHandle, object: string): Promise<ObjectInfo | undefined> {
    const data = await this.request(repo, 'info', object, 0);
    return data && { sha: data.sha, type: data.type, sizeBytes: data.sizeBytes };
  }

  /** An object with its bytes, kept up to `maxBytes` (the rest is read and dropped), or undefined. */
  contents(
    repo: RepoHandle,
    object: string,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<ObjectData | undefined> {
    return this.request(repo, 'contents', object, maxBytes);
  }

  /** The process id serving a repository, if one runs (diagnostics and tests). */
  pidOf(repo: RepoHandle): number | undefined {
    return this.processes.get(repo.key)?.pid;
  }

  /** Closes the repository's process, e.g. before the repository is deleted. */
  async evict(repo: RepoHandle): Promise<void> {
    const process = this.processes.get(repo.key);
    if (process) await this.retire(process);
  }

  /** Closes every process and refuses new requests; one that does not finish in `graceMs` is killed. */
  async closeAll(graceMs = 5_000): Promise<void> {
    this.closed = true;
    const all = [...this.processes.values()];
    const exits = all.map((process) => this.retire(process));
    const timer = setTimeout(() => {
      for (const process of all) void process.kill();
    }, graceMs);
    await Promise.all([...exits, ...this.closing]);
    clearTimeout(timer);
  }

  private async request(
    repo: RepoHandle,
    kind: 'info' | 'contents',
    object: string,
    maxBytes: number,
  ) {
    if (object.length === 0 || /[\0\r\n]/.test(object) || object !== object.trim()) {
      throw new Invalid('invalid object name');
    }
    // One retry: a process that crashed or was closed under us is replaced by a fresh one.
    for (let attempt = 0; ; attempt++) {
      const process = await this.acquire(repo);
      try {
        return await process.request(kind, object, maxBytes);
      } catch (error) {
        if (!(error instanceof CatFileGone) || attempt > 0) throw error;
      } finally {
        this.scheduleIdle(process);
      }
    }
  }

  private async acquire(repo: RepoHandle): Promise<CatFileProcess> {
    if (this.closed) throw new CatFileGone('the cat-file pool is closed');
    const existing = this.touch(repo.key);
    if (existing) return existing;
    await requireRepository(repo);
    const raced = this.touch(repo.key);
    if (raced) return raced;
    while (this.processes.size >= this.maxProcesses) {
      const [oldest] = this.processes.values();
      if (!oldest) break;
      void this.retire(oldest);
    }
    const process = new CatFileProcess(repo.key, repo.path, this.requestTimeoutMs, (gone) =>
      this.forget(gone),
    );
    this.processes.set(repo.key, process);
    return process;
  }

  /** The usable process for `key`, moved to the most-recent end; drops one that is not usable. */
  private touch(key: string): CatFileProcess | undefined {
    const process = this.processes.get(key);
    if (!process) return undefined;
    this.processes.delete(key);
    if (!process.usable) return undefined;
    this.processes.set(key, process);
    const timer = this.idleTimers.get(process);
    if (timer) clearTimeout(timer);
    this.idleTimers.delete(process);
    return process;
  }

  private scheduleIdle(process: CatFileProcess): void {
    if (process.pendingCount > 0 || !process.usable || this.idleMs <= 0) return;
    const previous = this.idleTimers.get(process);
    if (previous) clearTimeout(previous);
    const timer = setTimeout(() => void this.retire(process), this.idleMs);
    timer.unref();
    this.idleTimers.set(process, timer);
  }

  private retire(process: CatFileProcess): Promise<void> {
    this.forget(process);
    const exit = process.close();
    this.closing.add(exit);
    void exit.finally(() => this.closing.delete(exit));
    return exit;
  }

  private forget(process: CatFileProcess): void {
    if (this.processes.get(process.key) === process) this.processes.delete(process.key);
    const timer = this.idleTimers.get(process);
    if (timer) clearTimeout(timer);
    this.idleTimers.delete(process);
  }
}
