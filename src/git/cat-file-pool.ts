import { Invalid } from '../domain/errors.ts';
import {
  CatFileGone,
  CatFileProcess,
  type ObjectData,
  type ObjectInfo,
} from './cat-file-process.ts';
import type { KeptAnswersTally } from './kept-answers.ts';
import { alternatesState, objectsDir } from './object-store.ts';
import { ProcessPool } from './process-pool.ts';
import type { RepoHandle } from './repo-paths.ts';

export type { ObjectData, ObjectInfo } from './cat-file-process.ts';

export interface CatFilePoolOptions {
  /** Close a repository's process after this long without requests. Default 60 s. */
  idleMs?: number;
  /** At most this many processes; the least recently used is closed to make room. Default 32. */
  maxProcesses?: number;
  /** Fail a request (and restart its process) when git does not answer within this. Default 30 s. */
  requestTimeoutMs?: number;
  /** Where the processes' kept answers are summed for the cache registry (git-caches.ts). */
  keptAnswers?: KeptAnswersTally;
}

/**
 * The alternates file of `repo` as a cat-file process finds it when it starts, or undefined
 * when the repository borrows nothing. Git reads the alternates once and, on a miss, only ever
 * adds stores from it, so a process started before a loan was cut would keep serving the
 * lender's objects, those pushed after the cut included; a changed file replaces the process.
 * One that started borrowing nothing has no loan to lose (Kiln lends only at a fork's creation,
 * before anything reads it), so it is not watched and costs nothing.
 */
function loansOf(repo: RepoHandle): string | undefined {
  return alternatesState(objectsDir(repo.path));
}

/**
 * Long-lived `cat-file --batch-command` processes, one per repository, reused across requests
 * (a ProcessPool). A process that dies is replaced on the next request and the requests it
 * dropped are retried once.
 *
 * @example
 *   const pool = new CatFilePool({ idleMs: 30_000, maxProcesses: 16 });
 *   const head = await pool.info(repo, 'main^{commit}');
 */
export class CatFilePool {
  readonly #pool: ProcessPool<CatFileProcess>;

  constructor(options: CatFilePoolOptions = {}) {
    const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#pool = new ProcessPool(
      (repo, onExit) =>
        new CatFileProcess(repo.key, repo.path, requestTimeoutMs, onExit, options.keptAnswers),
      { ...options, startState: loansOf },
    );
  }

  /** Number of running processes. */
  get size(): number {
    return this.#pool.size;
  }

  /** Type, size and full id of an object expression (`<sha>`, `main^{commit}`, `<sha>:path`), or undefined. */
  async info(repo: RepoHandle, object: string): Promise<ObjectInfo | undefined> {
    const data = await this.#request(repo, 'info', object, 0);
    return data && { sha: data.sha, type: data.type, sizeBytes: data.sizeBytes };
  }

  /** An object with its bytes, kept up to `maxBytes` (the rest is read and dropped), or undefined. */
  contents(
    repo: RepoHandle,
    object: string,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<ObjectData | undefined> {
    return this.#request(repo, 'contents', object, maxBytes);
  }

  /** The process id serving a repository, if one runs (diagnostics and tests). */
  pidOf(repo: RepoHandle): number | undefined {
    return this.#pool.peek(repo)?.pid;
  }

  /** Closes the repository's process, e.g. before the repository is deleted. */
  evict(repo: RepoHandle): Promise<void> {
    return this.#pool.evict(repo);
  }

  /** Closes every process and refuses new requests; one that does not finish in `graceMs` is killed. */
  closeAll(graceMs = 5_000): Promise<void> {
    return this.#pool.closeAll(graceMs);
  }

  async #request(repo: RepoHandle, kind: 'info' | 'contents', object: string, maxBytes: number) {
    if (object.length === 0 || /[\0\r\n]/.test(object) || object !== object.trim()) {
      throw new Invalid('invalid object name');
    }
    // One retry: a process that crashed or was closed under us is replaced by a fresh one.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#pool.use(repo, (process) => process.request(kind, object, maxBytes));
      } catch (error) {
        if (!(error instanceof CatFileGone) || attempt > 0) throw error;
      }
    }
  }
}
