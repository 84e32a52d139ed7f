import type { Kysely } from 'kysely';
import type { CiTaskStatus, Tables } from '../../db/tables.ts';
import type { CiTask } from './ci.types.ts';
import { toTask } from './ci-rows.ts';

/** A step row of a job, as the runner last reported it. */
export type JobStep = {
  readonly index: number;
  readonly name: string;
  readonly status: string;
  readonly startedAt: Date | null;
  readonly stoppedAt: Date | null;
  /** The step's first row in the job's log, and how many rows it wrote. */
  readonly logIndex: number;
  readonly logLength: number;
};

/** A job with what a listing shows of it: its steps and the name of the runner that took it. */
export type JobView = CiTask & { readonly steps: readonly JobStep[]; readonly runnerName: string };

const UNFINISHED: CiTaskStatus[] = ['blocked', 'pending', 'running'];

const dateOrNull = (ms: number | null) => (ms === null ? null : new Date(Number(ms)));

/**
 * Queries over the jobs of runs (`ci_tasks` seen from their run, with `ci_task_steps` and
 * `ci_task_outputs`): what a run's page lists, what `needs` reads, and the run-wide changes
 * (unblocking, cancelling). What a runner does to the task it holds is in ci-task.store.ts.
 */
export class CiJobStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Every job of a run, in workflow order. */
  async listOfRun(runId: string): Promise<CiTask[]> {
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('id')
      .execute();
    return rows.map(toTask);
  }

  /**
   * A blocked job whose needs are done, or whose `concurrency` group admitted it, moves on
   * (pending, or skipped and stopped); it no longer waits for its group.
   */
  async unblock(taskId: number, status: CiTaskStatus, now: number): Promise<void> {
    await this.#db
      .updateTable('ci_tasks')
      .set({
        status,
        updated_at: now,
        concurrency_queued: false,
        ...(status === 'skipped' ? { stopped_at: now } : {}),
      })
      .where('id', '=', taskId)
      .where('status', '=', 'blocked')
      .execute();
  }

  /** Cancels every unfinished job of a run; a running job's token dies now. */
  async cancelUnfinishedOfRun(runId: string, now: number): Promise<void> {
    const jobs = await this.#db
      .updateTable('ci_tasks')
      .set({ status: 'cancelled', stopped_at: now, updated_at: now, token_hash: null })
      .where('run_id', '=', runId)
      .where('status', 'in', UNFINISHED)
      .returning('id')
      .execute();
    await this.#closeSteps(
      jobs.map((job) => Number(job.id)),
      now,
    );
  }

  /** Cancels one job if it is unfinished; returns its run then, else undefined. */
  async cancelUnfinished(taskId: number, now: number): Promise<string | undefined> {
    const job = await this.#db
      .updateTable('ci_tasks')
      .set({ status: 'cancelled', stopped_at: now, updated_at: now, token_hash: null })
      .where('id', '=', taskId)
      .where('status', 'in', UNFINISHED)
      .returning('run_id')
      .executeTakeFirst();
    if (job !== undefined) await this.#closeSteps([taskId], now);
    return job?.run_id;
  }

  /**
   * The steps of cancelled jobs: the one running was cut short, those still waiting never ran.
   * The runner's last report may still say more (how far the step's output went).
   */
  async #closeSteps(taskIds: readonly number[], now: number): Promise<void> {
    if (taskIds.length === 0) return;
    await this.#db
      .updateTable('ci_task_steps')
      .set({ status: 'cancelled', stopped_at: now })
      .where('task_id', 'in', [...taskIds])
      .where('status', '=', 'running')
      .execute();
    await this.#db
      .updateTable('ci_task_steps')
      .set({ status: 'skipped' })
      .where('task_id', 'in', [...taskIds])
      .where('status', '=', 'pending')
      .execute();
  }

  /**
   * Starts jobs over in run attempt `attempt`: each gets the status given (pending, or blocked
   * behind its needs), no runner, token, times, steps, outputs, annotations or log rows. Only
   * finished jobs change, so a job a runner still holds is never taken from it.
   */
  async restart(
    jobs: ReadonlyMap<number, 'pending' | 'blocked'>,
    attempt: number,
    now: number,
  ): Promise<number[]> {
    const restarted: number[] = [];
    for (const [taskId, status] of jobs) {
      const row = await this.#db
        .updateTable('ci_tasks')
        .set({
          status,
          runner_id: null,
          token_hash: null,
          started_at: null,
          stopped_at: null,
          deadline_at: null,
          heartbeat_at: null,
          log_rows: 0,
          log_sealed: false,
          concurrency_queued: false,
          updated_at: now,
          attempt,
        })
        .where('id', '=', taskId)
        .where('status', 'not in', UNFINISHED)
        .returning('id')
        .executeTakeFirst();
      if (row !== undefined) restarted.push(taskId);
    }
    if (restarted.length > 0) {
      await this.#db.deleteFrom('ci_task_steps').where('task_id', 'in', restarted).execute();
      await this.#db.deleteFrom('ci_task_outputs').where('task_id', 'in', restarted).execute();
      await this.#db.deleteFrom('ci_annotations').where('task_id', 'in', restarted).execute();
    }
    return restarted;
  }

  /** The jobs of a run with the given job ids (a matrix job has several). */
  async listByKeys(runId: string, jobKeys: readonly string[]): Promise<CiTask[]> {
    if (jobKeys.length === 0) return [];
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .selectAll()
      .where('run_id', '=', runId)
      .where('job_key', 'in', [...jobKeys])
      .execute();
    return rows.map(toTask);
  }

  /** The outputs stored for the jobs, in job order. */
  async listOutputs(
    taskIds: readonly number[],
  ): Promise<{ taskId: number; name: string; value: string }[]> {
    if (taskIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom('ci_task_outputs')
      .select(['task_id', 'name', 'value'])
      .where('task_id', 'in', [...taskIds])
      .orderBy('task_id')
      .execute();
    return rows.map((row) => ({ taskId: Number(row.task_id), name: row.name, value: row.value }));
  }

  /** A run's jobs as a listing shows them, in workflow order. */
  async listViews(runId: string): Promise<JobView[]> {
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .leftJoin('runners', 'runners.id', 'ci_tasks.runner_id')
      .selectAll('ci_tasks')
      .select('runners.name as runner_name')
      .where('run_id', '=', runId)
      .orderBy('ci_tasks.id')
      .execute();
    return this.#withSteps(rows);
  }

  /** One job of a repository as a listing shows it, or undefined. */
  async findView(repoId: string, jobId: number): Promise<JobView | undefined> {
    const row = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .leftJoin('runners', 'runners.id', 'ci_tasks.runner_id')
      .selectAll('ci_tasks')
      .select('runners.name as runner_name')
      .where('ci_tasks.id', '=', jobId)
      .where('workflow_runs.repo_id', '=', repoId)
      .executeTakeFirst();
    return row === undefined ? undefined : (await this.#withSteps([row]))[0];
  }

  async #withSteps(
    rows: readonly (Parameters<typeof toTask>[0] & { runner_name: string | null })[],
  ): Promise<JobView[]> {
    const ids = rows.map((row) => Number(row.id));
    const steps =
      ids.length === 0
        ? []
        : await this.#db
            .selectFrom('ci_task_steps')
            .selectAll()
            .where('task_id', 'in', ids)
            .orderBy('step_index')
            .execute();
    return rows.map((row) => ({
      ...toTask(row),
      runnerName: row.runner_name ?? '',
      steps: steps
        .filter((step) => Number(step.task_id) === Number(row.id))
        .map((step) => ({
          index: Number(step.step_index),
          name: step.name,
          status: step.status,
          startedAt: dateOrNull(step.started_at),
          stoppedAt: dateOrNull(step.stopped_at),
          logIndex: Number(step.log_index),
          logLength: Number(step.log_length),
        })),
    }));
  }
}
