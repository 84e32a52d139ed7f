import type { Kysely } from 'kysely';
import type { CiTaskStatus, Tables } from '../../db/tables.ts';

/** A step's state as last reported. */
export type StepState = {
  readonly index: number;
  readonly status: CiTaskStatus;
  readonly logIndex: number;
  readonly logLength: number;
  readonly startedAt: number | null;
  readonly stoppedAt: number | null;
};

/** The task as a report checks it: whose it is, its state, whether its log is sealed. */
export type HeldTask = {
  readonly runId: string;
  readonly runnerId: string | null;
  readonly status: CiTaskStatus;
  readonly logSealed: boolean;
  /** The log reached a cap: rows sent since are acknowledged and dropped. */
  readonly logTruncated: boolean;
};

/** Queries behind UpdateTask and UpdateLog, and the retention of finished tasks' logs. */
export class TaskReportStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  async findHeld(taskId: number): Promise<HeldTask | undefined> {
    const row = await this.#db
      .selectFrom('ci_tasks')
      .select(['run_id', 'runner_id', 'status', 'log_sealed', 'log_truncated'])
      .where('id', '=', taskId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      runId: row.run_id,
      runnerId: row.runner_id,
      status: row.status,
      logSealed: Boolean(row.log_sealed),
      logTruncated: Boolean(row.log_truncated),
    };
  }

  /** A running task's runner has reported. */
  async heartbeat(taskId: number, now: number): Promise<void> {
    await this.#db
      .updateTable('ci_tasks')
      .set({ heartbeat_at: now })
      .where('id', '=', taskId)
      .where('status', '=', 'running')
      .execute();
  }

  /** Stores outputs; the first write of a name wins. */
  async addOutputs(taskId: number, outputs: readonly { name: string; value: string }[]) {
    if (outputs.length === 0) return;
    await this.#db
      .insertInto('ci_task_outputs')
      .values(outputs.map((output) => ({ task_id: taskId, ...output })))
      .onConflict((oc) => oc.columns(['task_id', 'name']).doNothing())
      .execute();
  }

  async listOutputNames(taskId: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('ci_task_outputs')
      .select('name')
      .where('task_id', '=', taskId)
      .execute();
    return rows.map((row) => row.name);
  }

  async updateStep(taskId: number, step: StepState): Promise<void> {
    await this.#db
      .updateTable('ci_task_steps')
      .set({
        status: step.status,
        log_index: step.logIndex,
        log_length: step.logLength,
        started_at: step.startedAt,
        stopped_at: step.stoppedAt,
      })
      .where('task_id', '=', taskId)
      .where('step_index', '=', step.index)
      .execute();
  }

  /** No more rows: the log is sealed at `rows` rows and `bytes` bytes. */
  async sealLog(taskId: number, rows: number, bytes: number): Promise<void> {
    await this.#db
      .updateTable('ci_tasks')
      .set({ log_sealed: true, log_rows: rows, log_bytes: bytes })
      .where('id', '=', taskId)
      .execute();
  }

  /** Records how many bytes a growing log holds, for its repository's sum. */
  async recordLogBytes(taskId: number, bytes: number): Promise<void> {
    await this.#db
      .updateTable('ci_tasks')
      .set({ log_bytes: bytes })
      .where('id', '=', taskId)
      .execute();
  }

  /** The log reached a cap at `bytes` bytes; rows sent since are dropped. */
  async markLogTruncated(taskId: number, bytes: number): Promise<void> {
    await this.#db
      .updateTable('ci_tasks')
      .set({ log_truncated: true, log_bytes: bytes })
      .where('id', '=', taskId)
      .execute();
  }

  /**
   * The log bytes recorded for the tasks of the task's repository whose logs are still kept
   * (retention has not removed them).
   */
  async repoLogBytes(taskId: number): Promise<number> {
    const row = await this.#db
      .selectFrom('ci_tasks as task')
      .innerJoin('workflow_runs as run', 'run.id', 'task.run_id')
      .where('run.repo_id', '=', (query) =>
        query
          .selectFrom('ci_tasks as own')
          .innerJoin('workflow_runs as own_run', 'own_run.id', 'own.run_id')
          .select('own_run.repo_id')
          .where('own.id', '=', taskId),
      )
      .where('task.log_rows', '>=', 0)
      .select((eb) =>
        eb.fn.coalesce(eb.fn.sum<number | string>('task.log_bytes'), eb.lit(0)).as('bytes'),
      )
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  /** Tasks stopped before `before` whose log files still exist, at most `limit`. */
  async listExpiredLogs(before: number, limit: number): Promise<number[]> {
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .select('id')
      .where('stopped_at', '<', before)
      .where('log_rows', '>=', 0)
      .limit(limit)
      .execute();
    return rows.map((row) => Number(row.id));
  }

  /** `log_rows = -1` marks a task whose log is gone. */
  async markLogRemoved(taskId: number): Promise<void> {
    await this.#db.updateTable('ci_tasks').set({ log_rows: -1 }).where('id', '=', taskId).execute();
  }
}
