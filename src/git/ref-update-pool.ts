import { KeyedMutex } from '../lib/keyed-mutex.ts';
import { ProcessPool, type ProcessPoolOptions } from './process-pool.ts';
import { checkFullRef, checkSha, zeroSha } from './ref-names.ts';
import { RefUpdateProcess, RefUpdaterGone } from './ref-update-process.ts';
import type { RepoHandle } from './repo-paths.ts';

export interface RefUpdatePoolOptions extends ProcessPoolOptions {
  /** Kill a transaction's process when git does not finish it within this. Default 30 s. */
  timeoutMs?: number;
}

/**
 * Compare-and-swap ref updates through long-lived `update-ref --stdin` processes, one per
 * repository (a ProcessPool), for hot paths such as merging a pull request, where a fresh git
 * process per update would cost more than the update itself.
 *
 * @example
 *   await refUpdates.update(repo, 'refs/heads/main', mergeSha, baseSha);
 */
export class RefUpdatePool {
  readonly #pool: ProcessPool<RefUpdateProcess>;
  /**
   * One transaction per repository at a time, each taking the process only when its turn comes:
   * a refused transaction ends its process, and the next one must find the fresh one.
   */
  readonly #turns = new KeyedMutex();

  constructor(options: RefUpdatePoolOptions = {}) {
    const timeoutMs = options.timeoutMs ?? 30_000;
    this.#pool = new ProcessPool(
      (repo, onExit) => new RefUpdateProcess(repo.key, repo.path, timeoutMs, onExit),
      { idleMs: 30_000, maxProcesses: 16, ...options },
    );
  }

  /** Number of running processes. */
  get size(): number {
    return this.#pool.size;
  }

  /**
   * Moves `fullRef` to `newSha` if it is at `expectedOldSha` (null: if it does not exist yet).
   *
   * @throws Conflict when the ref is elsewhere or another writer holds its lock.
   */
  async update(
    repo: RepoHandle,
    fullRef: string,
    newSha: string,
    expectedOldSha: string | null,
  ): Promise<void> {
    const sha = checkSha(newSha, 'newSha');
    const old =
      expectedOldSha === null ? zeroSha(sha.length) : checkSha(expectedOldSha, 'expectedOldSha');
    const ref = checkFullRef(fullRef);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#turns.run(repo.key, () =>
          this.#pool.use(repo, (process) => process.update(ref, sha, old)),
        );
      } catch (error) {
        // Only a process found dead before anything was sent is safe to try again.
        if (!(error instanceof RefUpdaterGone) || attempt > 0) throw error;
      }
    }
  }

  /** Closes the repository's process, e.g. before the repository is deleted. */
  evict(repo: RepoHandle): Promise<void> {
    return this.#pool.evict(repo);
  }

  /** Closes every process; one that does not finish in `graceMs` is killed. */
  closeAll(graceMs = 5_000): Promise<void> {
    return this.#pool.closeAll(graceMs);
  }
}
