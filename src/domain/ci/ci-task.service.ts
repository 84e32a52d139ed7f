import type { Transaction } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Tables } from '../../db/tables.ts';
import type { CiTask, CiTaskResult } from './ci.types.ts';
import { toTask } from './workflow-run.store.ts';

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
  /** Called in the sweep's transaction with the runs whose jobs it stopped. */
  readonly onJobsStopped?: (trx: Transaction<Tables>, runIds: readonly string[]) => Promise<void>;
};

export class CiTaskService {
  readonly #db: Db;
  readonly #taskTimeoutMs: number;
  readonly #heartbeatTimeoutMs: number;
  readonly #abandonedTimeoutMs: number;
  readonly #onJobsStopped: CiTaskOptions['onJobsStopped'];

  constructor(db: Db, options: CiTaskOptions) {
    this.#db = db;
    this.#taskTimeoutMs = options.taskTimeoutMs;
    this.#heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 600_000;
    this.#abandonedTimeoutMs = options.abandonedTimeoutMs ?? 86_400_000;
    this.#onJobsStopped = options.onJobsStopped;
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
    return this.#db.transaction().execute(async (trx) => {
      // Writing the runner row first takes its lock on PostgreSQL, so two claims for one
      // ephemeral runner queue here and the second sees the first's task below.
      const runner = await trx
        .updateTable('runners')
        .set((eb) => ({ status: eb.ref('status') }))
        .where('id', '=', runnerId)
        .returning('ephemeral')
        .executeTakeFirst();
      if (runner === undefined) return undefined;
      if (runner.ephemeral) {
        const earlier = await trx
          .selectFrom('ci_tasks')
          .select('id')
          .where('runner_id', '=', runnerId)
          .limit(1)
          .executeTakeFirst();
        if (earlier !== undefined) return undefined;
      }
      const claimed = await trx
        .updateTable('ci_tasks')
        .set((eb) => ({
          status: 'running',
          runner_id: runnerId,
          started_at: now,
          deadline_at: now + this.#taskTimeoutMs,
          heartbeat_at: now,
          updated_at: now,
          token_hash: tokenHash,
          attempt: eb('attempt', '+', 1),
        }))
        .where('id', '=', taskId)
        .where('status', '=', 'pending')
        .where('runner_id', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (claimed === undefined) return undefined;
      const task = toTask(claimed);
      if (task.stepNames.length > 0) {
        await trx
          .insertInto('ci_task_steps')
          .values(
            task.stepNames.map((name, index) => ({
              task_id: task.id,
              step_index: index,
              name,
              status: 'pending' as const,
              log_index: 0,
              log_length: 0,
              started_at: null,
              stopped_at: null,
            })),
          )
          .execute();
      }
      await trx
        .updateTable('runners')
        .set({ status: 'active' })
        .where('id', '=', runnerId)
        .execute();
      await trx
        .updateTable('workflow_runs')
        .set({ status: 'RUNNING', started_at: now, updated_at: now })
        .where('id', '=', claimed.run_id)
        .where('status', 'in', ['PENDING', 'BLOCKED'])
        .execute();
      return task;
    });
  }

  /** Removes the runner if it is ephemeral and none of its tasks is still running. */
  async retireEphemeral(runnerId: string): Promise<void> {
    await this.#db
      .deleteFrom('runners')
      .where('id', '=', runnerId)
      .where('ephemeral', '=', true)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('ci_tasks')
              .select('id')
              .where('runner_id', '=', runnerId)
              .where('status', '=', 'running'),
          ),
        ),
      )
      .execute();
  }

  /**
   * Gives a claimed task back when its reply to the runner could not be built, so the job is not
   * stranded: pending again, without runner, token or steps.
   */
  async releaseClaim(taskId: number, runnerId: string): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      const released = await trx
        .updateTable('ci_tasks')
        .set((eb) => ({
          status: 'pending',
          runner_id: null,
          token_hash: null,
          started_at: null,
          deadline_at: null,
          heartbeat_at: null,
          attempt: eb('attempt', '-', 1),
        }))
        .where('id', '=', taskId)
        .where('runner_id', '=', runnerId)
        .where('status', '=', 'running')
        .returning('id')
        .executeTakeFirst();
      if (released !== undefined) {
        await trx.deleteFrom('ci_task_steps').where('task_id', '=', taskId).execute();
      }
    });
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
    return this.#db.transaction().execute(async (trx) => {
      const done = await trx
        .updateTable('ci_tasks')
        // The task token dies with the task.
        .set({ status: result, stopped_at: now, updated_at: now, token_hash: null })
        .where('id', '=', taskId)
        .where('runner_id', '=', runnerId)
        .where('status', '=', 'running')
        .returning('id')
        .executeTakeFirst();
      if (done === undefined) return { completed: false, runnerRemoved: false };
      const runner = await trx
        .selectFrom('runners')
        .select('ephemeral')
        .where('id', '=', runnerId)
        .executeTakeFirst();
      if (runner?.ephemeral) {
        await trx.deleteFrom('runners').where('id', '=', runnerId).execute();
        return { completed: true, runnerRemoved: true };
      }
      await trx
        .updateTable('runners')
        .set({ status: 'idle' })
        .where('id', '=', runnerId)
        .where('status', '=', 'active')
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('ci_tasks')
                .select('id')
                .where('runner_id', '=', runnerId)
                .where('status', '=', 'running'),
            ),
          ),
        )
        .execute();
      return { completed: true, runnerRemoved: false };
    });
  }

  /**
   * Fails every running task past its deadline, or whose runner has not reported within the
   * heartbeat timeout (a zombie), and marks its runner offline; returns how many tasks this call
   * failed. Their tokens die with them and their runs are settled. Safe to run on several replicas at once: the UPDATE only matches
   * tasks still running, so a task another replica failed first is skipped (PostgreSQL re-checks
   * the condition after waiting for the other writer's row lock), and each task is failed once.
   */
  async sweepZombies(now = Date.now()): Promise<number> {
    return this.#db.transaction().execute(async (trx) => {
      const failed = await trx
        .updateTable('ci_tasks')
        .set({ status: 'failure', stopped_at: now, updated_at: now, token_hash: null })
        .where('status', '=', 'running')
        .where((eb) =>
          eb.or([
            eb('deadline_at', '<', now),
            eb('heartbeat_at', '<', now - this.#heartbeatTimeoutMs),
          ]),
        )
        .returning(['id', 'runner_id', 'run_id'])
        .execute();
      const runnerIds = [
        ...new Set(failed.flatMap((task) => (task.runner_id === null ? [] : [task.runner_id]))),
      ];
      if (runnerIds.length > 0) {
        await trx
          .updateTable('runners')
          .set({ status: 'offline' })
          .where('id', 'in', runnerIds)
          .execute();
      }
      await this.#onJobsStopped?.(trx, [...new Set(failed.map((task) => task.run_id))]);
      return failed.length;
    });
  }

  /**
   * Cancels jobs that have waited for a runner, or for the jobs they need, longer than the
   * abandoned-job timeout (Gitea: 24 h); returns how many. Conditional on the status, so
   * replicas sweeping at once cancel each job once.
   */
  async cancelAbandoned(now = Date.now()): Promise<number> {
    return this.#db.transaction().execute(async (trx) => {
      const cancelled = await trx
        .updateTable('ci_tasks')
        .set({ status: 'cancelled', stopped_at: now, updated_at: now })
        .where('status', 'in', ['pending', 'blocked'])
        .where('updated_at', '<', now - this.#abandonedTimeoutMs)
        .returning('run_id')
        .execute();
      await this.#onJobsStopped?.(trx, [...new Set(cancelled.map((job) => job.run_id))]);
      return cancelled.length;
    });
  }
}
