import type { Transaction } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CiTaskStatus, Tables } from '../../db/tables.ts';
import { NotFound } from '../errors.ts';
import { parseStringArray } from '../runners/runner-input.ts';
import { bumpTasksVersions, type TasksVersions } from './tasks-version.ts';
import { aggregateStatus, isDone, resolveBlocked } from './workflow/job-status.ts';
import { runStatusOf } from './workflow-run.store.ts';

const UNFINISHED: CiTaskStatus[] = ['blocked', 'pending', 'running'];

/** What supersedes earlier runs: the same repository, ref, workflow and event, or one group. */
export type Supersedes = {
  readonly repoId: string;
  readonly ref: string;
  readonly workflowFile: string;
  readonly event: string;
  /** Set when the new run's `concurrency` has `cancel-in-progress`. */
  readonly concurrencyGroup: string | undefined;
};

/**
 * How a run moves once it exists: jobs finishing unblock or skip the jobs that need them, the
 * run's status follows its jobs, and runs or jobs are cancelled. Every change is a conditional
 * UPDATE on the current status, so replicas applying the same change race harmlessly.
 */
export class RunLifecycle {
  readonly #db: Db;
  readonly #versions: TasksVersions;

  constructor(db: Db, versions: TasksVersions) {
    this.#db = db;
    this.#versions = versions;
  }

  /**
   * Re-evaluates a run after one of its jobs changed: blocked jobs whose needs are done become
   * pending or skipped (job-status.ts), `tasks_version` moves when some became pending, and the
   * run takes the aggregate status of its jobs.
   */
  async settle(trx: Transaction<Tables>, runId: string, now = Date.now()): Promise<void> {
    const jobs = await trx
      .selectFrom('ci_tasks')
      .select(['id', 'job_key', 'needs', 'has_if', 'status'])
      .where('run_id', '=', runId)
      .execute();
    const changed = resolveBlocked(
      jobs.map((job) => ({
        key: String(job.id),
        jobId: job.job_key,
        needs: parseStringArray(job.needs),
        hasIf: Boolean(job.has_if),
        status: job.status,
      })),
    );
    for (const [key, status] of changed) {
      await trx
        .updateTable('ci_tasks')
        .set({ status, updated_at: now, ...(status === 'skipped' ? { stopped_at: now } : {}) })
        .where('id', '=', Number(key))
        .where('status', '=', 'blocked')
        .execute();
    }
    const statuses = jobs.map((job) => (changed.get(String(job.id)) ?? job.status) as CiTaskStatus);
    if ([...changed.values()].includes('pending')) {
      const scopes = await this.#scopesOfRun(trx, runId);
      await bumpTasksVersions(trx, scopes);
      this.#versions.forget(scopes);
    }
    const aggregate = aggregateStatus(statuses);
    await trx
      .updateTable('workflow_runs')
      .set({
        status: runStatusOf(aggregate),
        updated_at: now,
        ...(isDone(aggregate) ? { stopped_at: now } : {}),
      })
      .where('id', '=', runId)
      .execute();
  }

  /** Cancels the unfinished runs a new run supersedes. */
  async cancelSuperseded(what: Supersedes): Promise<void> {
    let query = this.#db
      .selectFrom('workflow_runs')
      .select('id')
      .where('repo_id', '=', what.repoId)
      .where('status', 'in', ['PENDING', 'BLOCKED', 'RUNNING']);
    query =
      what.concurrencyGroup === undefined
        ? query
            .where('ref', '=', what.ref)
            .where('workflow_file', '=', what.workflowFile)
            .where('event', '=', what.event)
        : query.where((eb) =>
            eb.or([
              eb('concurrency_group', '=', what.concurrencyGroup as string),
              eb.and([
                eb('ref', '=', what.ref),
                eb('workflow_file', '=', what.workflowFile),
                eb('event', '=', what.event),
              ]),
            ]),
          );
    for (const run of await query.execute()) await this.cancelRun(run.id);
  }

  /**
   * Cancels every unfinished job of a run. A running job's runner learns it from the answer to its
   * next UpdateTask (RESULT_CANCELLED), runs its post steps and still reports; its token dies now.
   * @throws NotFound when there is no such run.
   */
  async cancelRun(runId: string, now = Date.now()): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      const run = await trx
        .selectFrom('workflow_runs')
        .select('id')
        .where('id', '=', runId)
        .executeTakeFirst();
      if (run === undefined) throw new NotFound('workflow run not found');
      await trx
        .updateTable('ci_tasks')
        .set({ status: 'cancelled', stopped_at: now, updated_at: now, token_hash: null })
        .where('run_id', '=', runId)
        .where('status', 'in', UNFINISHED)
        .execute();
      await this.settle(trx, runId, now);
    });
  }

  /** Cancels one job (a task row) if it is unfinished, then settles its run. */
  async cancelJob(taskId: number, now = Date.now()): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      const job = await trx
        .updateTable('ci_tasks')
        .set({ status: 'cancelled', stopped_at: now, updated_at: now, token_hash: null })
        .where('id', '=', taskId)
        .where('status', 'in', UNFINISHED)
        .returning('run_id')
        .executeTakeFirst();
      if (job !== undefined) await this.settle(trx, job.run_id, now);
    });
  }

  async #scopesOfRun(trx: Transaction<Tables>, runId: string): Promise<string[]> {
    const row = await trx
      .selectFrom('workflow_runs')
      .innerJoin('repositories', 'repositories.id', 'workflow_runs.repo_id')
      .select(['repositories.id', 'repositories.owner_id'])
      .where('workflow_runs.id', '=', runId)
      .executeTakeFirst();
    return row === undefined ? [] : ['global', `owner:${row.owner_id}`, `repo:${row.id}`];
  }
}
