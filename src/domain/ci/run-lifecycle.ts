import type { CiTaskStatus } from '../../db/tables.ts';
import { NotFound } from '../errors.ts';
import type { CiTask } from './ci.types.ts';
import type { CiStores } from './ci-stores.ts';
import { awaitsApproval } from './fork-approval.ts';
import { JobAdmission } from './job-admission.ts';
import { type TasksVersions, versionScopesOfRepo } from './tasks-version.ts';
import { aggregateStatus, isDone, resolveBlocked } from './workflow/job-status.ts';
import { runStatusOf, type Supersedes } from './workflow-run.store.ts';

export type { Supersedes };

/**
 * How a run moves once it exists: jobs finishing unblock or skip the jobs that need them, the
 * run's status follows its jobs, and runs or jobs are cancelled. Every change is a conditional
 * UPDATE on the current status, so replicas applying the same change race harmlessly.
 */
export class RunLifecycle {
  readonly #stores: CiStores;
  readonly #versions: TasksVersions;
  readonly #admission = new JobAdmission((stores, runId, now) => this.settle(stores, runId, now));

  constructor(stores: CiStores, versions: TasksVersions) {
    this.#stores = stores;
    this.#versions = versions;
  }

  /**
   * Re-evaluates a run after one of its jobs changed: blocked jobs whose needs are done become
   * pending or skipped (job-status.ts), `tasks_version` moves when some became pending, and the
   * run takes the aggregate status of its jobs. A run queued behind its `concurrency` group
   * keeps every job blocked, and so does a run that waits for a writer's approval
   * (fork-approval.ts: neither its needs nor its groups are looked at until then); a run of a
   * group that ends lets the group's queued run go when no other run of the group is left
   * unfinished. Jobs with a `concurrency` of their own enter their group rather than becoming
   * pending outright (job-admission.ts), and a job of a group that ended lets the group's
   * waiting job go. Pass the stores of the caller's transaction.
   */
  async settle(stores: CiStores, runId: string, now = Date.now()): Promise<void> {
    const run = await stores.runs.findById(runId);
    const jobs = await stores.jobs.listOfRun(runId);
    const held = run !== undefined && (run.concurrencyQueued || awaitsApproval(run));
    const grouped = run !== undefined && jobs.some((job) => job.concurrencyGroup !== null);
    if (grouped) await stores.groups.lock(run.repoId);
    const changed = held
      ? new Map<string, 'pending' | 'skipped'>()
      : resolveBlocked(
          jobs.map((job) => ({
            key: String(job.id),
            jobId: job.jobKey,
            needs: job.needs,
            hasIf: job.hasIf,
            status: job.status,
          })),
        );
    if (grouped && !held && (await this.#admission.admit(stores, run, jobs, changed, now))) {
      // The admission cancelled a job of this run (a matrix sharing one group): start over.
      return this.settle(stores, runId, now);
    }
    for (const [key, status] of changed) await stores.jobs.unblock(Number(key), status, now);
    const statuses = jobs.map((job) => (changed.get(String(job.id)) ?? job.status) as CiTaskStatus);
    if ([...changed.values()].includes('pending')) {
      const repo = await stores.runs.findRepoOf(runId);
      const scopes = repo === undefined ? [] : versionScopesOfRepo(repo);
      await stores.versions.bump(scopes);
      this.#versions.forget(scopes);
    }
    const aggregate = aggregateStatus(statuses);
    await stores.runs.setStatus(runId, runStatusOf(aggregate), isDone(aggregate), now);
    if (run?.concurrencyGroup != null && isDone(aggregate)) {
      await this.#releaseGroup(stores, run.repoId, run.concurrencyGroup, now);
    }
    if (grouped) await this.#releaseJobGroups(stores, run.repoId, jobs, statuses, now);
  }

  /** The groups of this run's jobs that ended let their waiting jobs go. */
  async #releaseJobGroups(
    stores: CiStores,
    repoId: string,
    jobs: readonly CiTask[],
    statuses: readonly CiTaskStatus[],
    now: number,
  ): Promise<void> {
    const ended = new Set<string>();
    for (const [at, job] of jobs.entries()) {
      const status = statuses[at];
      if (job.concurrencyGroup !== null && status !== undefined && isDone(status)) {
        ended.add(job.concurrencyGroup);
      }
    }
    for (const group of ended) await this.#admission.release(stores, repoId, group, now);
  }

  /** Settles a run in a transaction of its own (after its jobs were created). */
  async settleNow(runId: string, now = Date.now()): Promise<void> {
    await this.#stores.transaction((stores) => this.settle(stores, runId, now));
  }

  /**
   * Lets the oldest queued run of a group go (its jobs without needs become pending) when no
   * unqueued run of the group is unfinished: at most one run of a group runs at a time.
   */
  async #releaseGroup(stores: CiStores, repoId: string, group: string, now: number) {
    const unfinished = await stores.runs.listUnfinishedOfGroup(repoId, group);
    if (unfinished.some((run) => !run.queued)) return;
    const [next] = unfinished;
    if (next !== undefined && (await stores.runs.release(next.id, now))) {
      await this.settle(stores, next.id, now);
    }
  }

  /**
   * Makes room for a new run of a `concurrency` group without `cancel-in-progress`: the run
   * already queued in the group is cancelled (the newer one replaces it, as on GitHub). Answers
   * whether a run of the group is still unfinished, so that the new one must queue behind it.
   */
  async queueBehind(repoId: string, group: string): Promise<boolean> {
    for (const run of await this.#stores.runs.listUnfinishedOfGroup(repoId, group)) {
      if (run.queued) await this.cancelRun(run.id);
    }
    const left = await this.#stores.runs.listUnfinishedOfGroup(repoId, group);
    return left.length > 0;
  }

  /**
   * After a run was queued: if the run it queued behind ended in between (on this replica or
   * another), nothing would release it, so the group is looked at again now.
   */
  async recheckGroup(repoId: string, group: string, now = Date.now()): Promise<void> {
    await this.#stores.transaction((stores) => this.#releaseGroup(stores, repoId, group, now));
  }

  /**
   * After jobs of a finished run were made pending again (a re-run), or a run from a fork was
   * approved: runners polling the run's scopes are told there is work, and the run's status
   * follows its jobs (an approved run's blocked jobs become pending).
   */
  async reopened(stores: CiStores, runId: string, now = Date.now()): Promise<void> {
    const repo = await stores.runs.findRepoOf(runId);
    const scopes = repo === undefined ? [] : versionScopesOfRepo(repo);
    await stores.versions.bump(scopes);
    this.#versions.forget(scopes);
    await this.settle(stores, runId, now);
  }

  /** Cancels the unfinished runs a new run supersedes. */
  async cancelSuperseded(what: Supersedes): Promise<void> {
    for (const runId of await this.#stores.runs.listSuperseded(what)) await this.cancelRun(runId);
  }

  /**
   * Cancels every unfinished job of a run. A running job's runner learns it from the answer to its
   * next UpdateTask (RESULT_CANCELLED), runs its post steps and still reports; its token dies now.
   * @throws NotFound when there is no such run.
   */
  async cancelRun(runId: string, now = Date.now()): Promise<void> {
    await this.#stores.transaction(async (stores) => {
      const run = await stores.runs.findById(runId);
      if (run === undefined) throw new NotFound('workflow run not found');
      // The repository's CI lock before any job row, in the order admissions take them.
      await stores.groups.lock(run.repoId);
      await stores.jobs.cancelUnfinishedOfRun(runId, now);
      await this.settle(stores, runId, now);
    });
  }

  /** Cancels one job (a task row) if it is unfinished, then settles its run. */
  async cancelJob(taskId: number, now = Date.now()): Promise<void> {
    await this.#stores.transaction(async (stores) => {
      const of = await stores.groups.findGroupOf(taskId);
      if (of !== undefined) await stores.groups.lock(of.repoId);
      const runId = await stores.jobs.cancelUnfinished(taskId, now);
      if (runId !== undefined) await this.settle(stores, runId, now);
    });
  }
}
