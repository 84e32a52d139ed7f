import { hostname } from 'node:os';
import type { Config } from '../../config/config.ts';
import { GitError } from '../../git/git-error.ts';
import {
  countObjectFiles,
  estimateObjectFiles,
  MAINTENANCE_STEP_TIMEOUT_MS,
  type MaintenanceKind,
  maintainRepository,
  type ObjectCounts,
  wantsFirstCommitGraph,
} from '../../git/housekeeping.ts';
import { listLoans } from '../../git/object-loans.ts';
import { repositoryExists } from '../../git/repo-exists.ts';
import type { RepoHandle, RepoPaths } from '../../git/repo-paths.ts';
import { newId } from '../../lib/ids.ts';
import type { HousekeepingStore } from './housekeeping.store.ts';
import type { HousekeepingRun } from './housekeeping.types.ts';
import type { Repository } from './repo.types.ts';

/** When and how repositories are maintained (`service.housekeeping.*`). */
export type HousekeepingSettings = Config['housekeeping'];

export type HousekeepingDeps = {
  readonly store: HousekeepingStore;
  readonly paths: RepoPaths;
  readonly settings: HousekeepingSettings;
  /** Where a run's failure is reported (besides the run history and the counters). */
  readonly onError: (error: unknown) => void;
};

/** Counters for `/metrics`, since the process started. */
export type HousekeepingStats = {
  readonly runs: Readonly<Record<`${MaintenanceKind}:${'ok' | 'failed'}`, number>>;
  /** Runs not started because another process held the repository's lease. */
  readonly leaseBusy: number;
  readonly running: number;
  readonly queued: number;
  /** Seconds the last finished run took, 0 before the first. */
  readonly lastDurationSeconds: number;
  readonly durationSecondsTotal: number;
};

/** A lease outlives the longest run: six git steps, each stopped at its timeout. */
const LEASE_MS = 6 * MAINTENANCE_STEP_TIMEOUT_MS + 60_000;

/**
 * Keeps repositories packed in the background after pushes.
 *
 * A push only costs a directory listing: the repository is queued once it holds more packs or
 * loose objects than the thresholds, and a repository already queued is not queued twice, while
 * pushes during its run lead to one more look once it ends (that is the debouncing). At most
 * `concurrency` runs at once in this process, and each first claims the repository's lease in
 * the database, so replicas sharing the repositories never maintain one at the same time (a run
 * that finds the lease taken is skipped; the next push looks again). Nothing here is awaited by
 * the push.
 *
 * Pruning: a run is full (unreachable objects older than `pruneAfterMs` deleted) at most once
 * per `pruneIntervalMs`, and never for a repository that lends objects to another (a borrower may
 * need what the lender no longer reaches), checked from the alternates files right before.
 */
export class HousekeepingService {
  readonly #deps: HousekeepingDeps;
  /** Identifies this process in leases and the run history. */
  readonly holder = `${hostname()}:${process.pid}:${newId().slice(0, 8)}`;
  /** Keyed by `RepoHandle.key`, the repository's directory. */
  readonly #waiting = new Map<string, RepoHandle>();
  readonly #active = new Set<string>();
  readonly #recheck = new Map<string, Repository>();
  readonly #runs = new Set<Promise<void>>();
  #closed = false;
  #stats = {
    runs: { 'incremental:ok': 0, 'incremental:failed': 0, 'full:ok': 0, 'full:failed': 0 },
    leaseBusy: 0,
    lastDurationSeconds: 0,
    durationSecondsTotal: 0,
  };

  constructor(deps: HousekeepingDeps) {
    this.#deps = deps;
  }

  /**
   * Called after every push; returns at once. Counting files happens in the background and
   * failures go to `onError`.
   */
  afterPush(repo: Repository): void {
    if (!this.#deps.settings.enabled || this.#closed) return;
    const handle = this.#deps.paths.resolve({ owner: repo.owner.handle, name: repo.name });
    if (this.#waiting.has(handle.key)) return;
    // A push during a run may have added what the run did not see: look again once it ends.
    if (this.#active.has(handle.key)) this.#recheck.set(handle.key, repo);
    else this.#consider(handle).catch(this.#deps.onError);
  }

  async #consider(repo: RepoHandle): Promise<void> {
    const counts = await estimateObjectFiles(repo);
    const { packThreshold, looseThreshold } = this.#deps.settings;
    if (
      counts.packs <= packThreshold &&
      counts.looseObjects <= looseThreshold &&
      !(await wantsFirstCommitGraph(repo))
    ) {
      return;
    }
    if (this.#closed || this.#waiting.has(repo.key) || this.#active.has(repo.key)) return;
    this.#waiting.set(repo.key, repo);
    this.#pump();
  }

  #pump(): void {
    for (const [key, repo] of this.#waiting) {
      if (this.#active.size >= this.#deps.settings.concurrency || this.#closed) return;
      this.#waiting.delete(key);
      this.#active.add(key);
      const run = this.#run(repo)
        .catch(this.#deps.onError)
        .finally(() => {
          this.#active.delete(key);
          this.#runs.delete(run);
          const pushed = this.#recheck.get(key);
          this.#recheck.delete(key);
          if (pushed) this.afterPush(pushed);
          this.#pump();
        });
      this.#runs.add(run);
    }
  }

  async #run(repo: RepoHandle): Promise<void> {
    const { store, settings } = this.#deps;
    const startedAt = Date.now();
    const lease = await store.claim(repo.key, this.holder, startedAt, LEASE_MS);
    if (!lease) {
      this.#stats.leaseBusy++;
      return;
    }
    let fullAt: number | undefined;
    try {
      if (!(await repositoryExists(repo))) return;
      const before = await countObjectFiles(repo);
      const due = startedAt - lease.lastFullAt >= settings.pruneIntervalMs;
      const prune = due && !(await this.#lends(repo));
      let kind: MaintenanceKind = prune ? 'full' : 'incremental';
      let error: string | null = null;
      try {
        kind = await maintainRepository(repo, prune ? { pruneAfterMs: settings.pruneAfterMs } : {});
        if (kind === 'full') fullAt = startedAt;
      } catch (failure) {
        // Kept for the admin page: which step and how it ended, never git's stderr (logged).
        error =
          failure instanceof GitError
            ? `git ${failure.args[0] ?? ''} ${failure.reason ?? `exited with code ${failure.exitCode}`}`
            : 'failed';
        this.#deps.onError(failure);
      }
      await this.#finish(repo, kind, startedAt, before, error);
    } finally {
      await store.release(repo.key, this.holder, fullAt);
    }
  }

  async #lends(repo: RepoHandle): Promise<boolean> {
    const loans = await listLoans(this.#deps.paths);
    return loans.some((loan) => loan.lender?.path === repo.path);
  }

  async #finish(
    repo: RepoHandle,
    kind: MaintenanceKind,
    startedAt: number,
    before: ObjectCounts,
    error: string | null,
  ): Promise<void> {
    const finishedAt = Date.now();
    const after = await countObjectFiles(repo);
    const outcome = error === null ? 'ok' : 'failed';
    const seconds = (finishedAt - startedAt) / 1000;
    this.#stats.runs[`${kind}:${outcome}`]++;
    this.#stats.lastDurationSeconds = seconds;
    this.#stats.durationSecondsTotal += seconds;
    await this.#deps.store.record({
      repoKey: repo.key,
      holder: this.holder,
      kind,
      outcome,
      startedAt,
      finishedAt,
      packsBefore: before.packs,
      looseBefore: before.looseObjects,
      packsAfter: after.packs,
      looseAfter: after.looseObjects,
      error,
    });
  }

  /** The counters, for `/metrics`. */
  stats(): HousekeepingStats {
    return {
      ...this.#stats,
      runs: { ...this.#stats.runs },
      running: this.#active.size,
      queued: this.#waiting.size,
    };
  }

  /** The latest runs of any process, newest first (admin page). */
  listRecentRuns(limit = 50): Promise<HousekeepingRun[]> {
    return this.#deps.store.listRecent(limit);
  }

  /** What a repository's object directory holds now, counted from its files. */
  countObjects(repoKey: string): Promise<ObjectCounts> {
    const [owner = '', name = ''] = repoKey.split('/');
    return countObjectFiles(this.#deps.paths.resolve({ owner, name }));
  }

  /** Stops queueing and waits for runs in progress (they are bounded by git's timeouts). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#waiting.clear();
    this.#recheck.clear();
    await Promise.all(this.#runs);
  }
}
