import type { CiTask, CiTaskResult } from './ci.types.ts';
import type { CiStores } from './ci-stores.ts';
import type { RunLifecycle } from './run-lifecycle.ts';

export type TaskCompletion = {
  /** False when the task was not running for this runner (already final, or someone else's). */
  readonly completed: boolean;
  /** True when the runner was ephemeral and has been removed with its single task done. */
  readonly runnerRemoved: boolean;
};

/**
 * The lifecycle of a task once a runner has it: claim (with a deadline), completion, and the
 * zombie sweep that fails tasks whose runner went silent past the deadline. Every transition is
 * a conditional UPDATE on the task's current status, so replicas racing on one task cannot apply
 * it twice.
 */
export type CiTaskOptions = {
  /** A claimed task must finish within this (SERVICE_CI_TASK_TIMEOUT). */
  readonly taskTimeoutMs: number;
  /** A running task whose runner has not reported for this long is failed. Default 10 min. */
  readonly heartbeatTimeoutMs?: number;
  /** A pending or blocked job older than this is cancelled. Default 24 h. */
  readonly abandonedTimeoutMs?: number;
  /**
   * Settles, in the sweep's transaction, the runs whose jobs a sweep stopped (`RunLifecycle`);
   * without it their runs are left as they were (a replica's test sweep).
   */
  readonly runs?: Pick<RunLifecycle, 'settle'>;
};

export class CiTaskService {
  readonly #stores: CiStores;
  readonly #taskTimeoutMs: number;
  readonly #heartbeatTimeoutMs: number;
  readonly #abandonedTimeoutMs: number;
  readonly #runs: CiTaskOptions['runs'];

  constructor(stores: CiStores, options: CiTaskOptions) {
    this.#stores = stores;
    this.#taskTimeoutMs = options.taskTimeoutMs;
    this.#heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 600_000;
    this.#abandonedTimeoutMs = options.abandonedTimeoutMs ?? 86_400_000;
    this.#runs = options.runs;
  }

  /**
   * Gives a pending task to a runner: running, started now, deadline now + the task timeout; the
   * runner becomes active and a pending run running. Returns undefined when the task is no longer
   * pending, the runner is gone, or the runner is ephemeral and has had its one task already.
   */
  async claimTask(
    taskId: number,
    runnerId: string,
    now = Date.now(),
    tokenHash: string | null = null,
  ): Promise<CiTask | undefined> {
    return this.#stores.transaction(async ({ tasks, taskRunners, runs, groups }) => {
      // A job of a `concurrency` group is claimed under its repository's CI lock, taken before
      // any other, and only while no other job of the group runs: two replicas handing out two
      // jobs of one group at once cannot both succeed.
      const of = await groups.findGroupOf(taskId);
      const group = of?.group == null ? undefined : { repoId: of.repoId, group: of.group };
      if (group !== undefined) await groups.lock(group.repoId);
      // Writing the runner row first takes its lock on PostgreSQL, so two claims for one
      // ephemeral runner queue here and the second sees the first's task below.
      const runner = await taskRunners.lockRunner(runnerId);
      if (runner === undefined) return undefined;
      if (runner.ephemeral && (await taskRunners.hasHadTask(runnerId))) return undefined;
      const deadlineAt = now + this.#taskTimeoutMs;
      const task = await tasks.claim(taskId, runnerId, { now, deadlineAt, tokenHash, group });
      if (task === undefined) return undefined;
      await tasks.addSteps(task.id, task.stepNames);
      await taskRunners.markRunnerActive(runnerId);
      await runs.markStarted(task.runId, now);
      return task;
    });
  }

  /** Removes the runner if it is ephemeral and none of its tasks is still running. */
  async retireEphemeral(runnerId: string): Promise<void> {
    await this.#stores.taskRunners.deleteIdleEphemeral(runnerId);
  }

  /**
   * Gives a claimed task back when its reply to the runner could not be built, so the job is not
   * stranded: pending again, without runner, token or steps.
   */
  async releaseClaim(taskId: number, runnerId: string): Promise<void> {
    await this.#stores.transaction(({ tasks }) => tasks.release(taskId, runnerId));
  }

  /**
   * Records the final result a runner reports for its running task. An ephemeral runner is
   * removed with it (SPEC.md: its credentials stop working); any other runner with nothing else
   * running is idle again.
   */
  async completeTask(
    taskId: number,
    runnerId: string,
    result: CiTaskResult,
    now = Date.now(),
  ): Promise<TaskCompletion> {
    return this.#stores.transaction(async ({ tasks, taskRunners }) => {
      if (!(await tasks.complete(taskId, runnerId, result, now))) {
        return { completed: false, runnerRemoved: false };
      }
      // An ephemeral runner has exactly one task, which just ended: it goes.
      if (await taskRunners.deleteIdleEphemeral(runnerId))
        return { completed: true, runnerRemoved: true };
      await taskRunners.idleIfFree(runnerId);
      return { completed: true, runnerRemoved: false };
    });
  }

  /**
   * Fails every running task past its deadline, or whose runner has not reported within the
   * heartbeat timeout (a zombie), and marks its runner offline; returns how many tasks this call
   * failed. Their tokens die with them and their runs are settled. Safe to run on several
   * replicas at once: the UPDATE only matches tasks still running, so a task another replica
   * failed first is skipped (PostgreSQL re-checks the condition after waiting for the other
   * writer's row lock), and each task is failed once.
   */
  async sweepZombies(now = Date.now()): Promise<number> {
    return this.#stores.transaction(async (stores) => {
      const silentBefore = now - this.#heartbeatTimeoutMs;
      const repos = await stores.groups.reposToSweep({ zombies: { now, silentBefore } });
      for (const repoId of repos) await stores.groups.lock(repoId);
      const failed = await stores.tasks.failZombies(now, silentBefore);
      const runnerIds = failed.flatMap((task) => (task.runnerId === null ? [] : [task.runnerId]));
      await stores.taskRunners.markRunnersOffline([...new Set(runnerIds)]);
      await this.#settle(
        stores,
        failed.map((task) => task.runId),
      );
      return failed.length;
    });
  }

  /**
   * Cancels jobs that have waited for a runner, or for the jobs they need, longer than the
   * abandoned-job timeout (Gitea: 24 h); returns how many. Conditional on the status, so
   * replicas sweeping at once cancel each job once.
   */
  async cancelAbandoned(now = Date.now()): Promise<number> {
    return this.#stores.transaction(async (stores) => {
      const before = now - this.#abandonedTimeoutMs;
      for (const repoId of await stores.groups.reposToSweep({ waitingSince: before })) {
        await stores.groups.lock(repoId);
      }
      const runIds = await stores.tasks.cancelWaitingSince(before, now);
      await this.#settle(stores, runIds);
      return runIds.length;
    });
  }

  /** Settles each run once, in the transaction of the sweep that stopped its jobs. */
  async #settle(stores: CiStores, runIds: readonly string[]): Promise<void> {
    for (const runId of new Set(runIds)) await this.#runs?.settle(stores, runId);
  }
}
