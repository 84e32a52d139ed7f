import type { Db } from '../../db/database.ts';
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
export class CiTaskService {
  readonly #db: Db;
  readonly #taskTimeoutMs: number;

  constructor(db: Db, options: { taskTimeoutMs: number }) {
    this.#db = db;
    this.#taskTimeoutMs = options.taskTimeoutMs;
  }

  /**
   * Gives a pending task to a runner: running, started now, deadline now + the task timeout; the
   * runner becomes active and a pending run running. Returns undefined when the task is no longer
   * pending, the runner is gone, or the runner is ephemeral and has had its one task already.
   */
  async claimTask(taskId: number, runnerId: string, now = Date.now()): Promise<CiTask | undefined> {
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
        .set({
          status: 'running',
          runner_id: runnerId,
          started_at: now,
          deadline_at: now + this.#taskTimeoutMs,
        })
        .where('id', '=', taskId)
        .where('status', '=', 'pending')
        .where('runner_id', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (claimed === undefined) return undefined;
      await trx
        .updateTable('runners')
        .set({ status: 'active' })
        .where('id', '=', runnerId)
        .execute();
      await trx
        .updateTable('workflow_runs')
        .set({ status: 'RUNNING', started_at: now, updated_at: now })
        .where('id', '=', claimed.run_id)
        .where('status', '=', 'PENDING')
        .execute();
      return toTask(claimed);
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
        .set({ status: result, stopped_at: now })
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
   * Fails every running task past its deadline and marks its runner offline; returns how many
   * tasks this call failed. Safe to run on several replicas at once: the UPDATE only matches
   * tasks still running, so a task another replica failed first is skipped (PostgreSQL re-checks
   * the condition after waiting for the other writer's row lock), and each task is failed once.
   */
  async sweepZombies(now = Date.now()): Promise<number> {
    return this.#db.transaction().execute(async (trx) => {
      const failed = await trx
        .updateTable('ci_tasks')
        .set({ status: 'failure', stopped_at: now })
        .where('status', '=', 'running')
        .where('deadline_at', '<', now)
        .returning(['id', 'runner_id'])
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
      return failed.length;
    });
  }
}
