import type { Kysely } from 'kysely';
import { LeaseQueue, type LeaseQueueShape } from '../../db/lease-queue.ts';
import type { Tables } from '../../db/tables.ts';
import type { RunnerScope } from '../runners/runner.types.ts';
import { parseStringArray } from '../runners/runner-input.ts';
import type { CiTask, CiTaskResult } from './ci.types.ts';
import { toTask } from './ci-rows.ts';
import { groupIsFree, isWaitingSince, isZombie, runIsCleared } from './task-conditions.ts';

/** What a claim writes besides the runner: when, until when, and the token's hash. */
export type Claim = {
  readonly now: number;
  readonly deadlineAt: number;
  readonly tokenHash: string | null;
  /** The job's `concurrency` group: the claim fails while another job of it runs. */
  readonly group?: { readonly repoId: string; readonly group: string };
};

/**
 * Pending tasks nobody holds are the work; a claim holds one until its deadline, and a task
 * past it is failed by the zombie sweep rather than claimed again (its steps may have run).
 */
const TASK_QUEUE: LeaseQueueShape<Tables, 'ci_tasks'> = {
  table: 'ci_tasks',
  key: 'id',
  lease: 'deadline_at',
  freeLease: null,
  claimable: (eb) => eb.and([eb('status', '=', 'pending'), eb('runner_id', 'is', null)]),
};

/**
 * Queries over the tasks runners take (`ci_tasks` and their steps): claim, release, completion,
 * the zombie and abandoned-job sweeps, and what FetchTask picks from; the `runners` rows these
 * change are TaskRunnerStore's. Every change is conditional on the current status, so replicas
 * racing on one task apply it once.
 */
export class CiTaskStore {
  readonly #db: Kysely<Tables>;
  readonly #queue: LeaseQueue<Tables, 'ci_tasks'>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
    this.#queue = new LeaseQueue(db, TASK_QUEUE);
  }

  /**
   * Gives a pending, unheld task to the runner until its deadline (the task's lease); undefined
   * if taken, or if another job of its `concurrency` group runs.
   */
  async claim(taskId: number, runnerId: string, claim: Claim): Promise<CiTask | undefined> {
    const row = await this.#queue.claimKey(taskId, {
      now: claim.now,
      leaseMs: claim.deadlineAt - claim.now,
      set: {
        status: 'running',
        runner_id: runnerId,
        started_at: claim.now,
        heartbeat_at: claim.now,
        updated_at: claim.now,
        token_hash: claim.tokenHash,
      },
      where: (eb) => eb.and([groupIsFree(taskId, claim.group)(eb), runIsCleared()(eb)]),
    });
    return row === undefined ? undefined : toTask(row);
  }

  /** One pending step row per step name, made when the task is claimed. */
  async addSteps(taskId: number, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await this.#db
      .insertInto('ci_task_steps')
      .values(
        names.map((name, index) => ({
          task_id: taskId,
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

  /** Undoes a claim still running for this runner, steps included; whether it did. */
  async release(taskId: number, runnerId: string): Promise<boolean> {
    const released = await this.#queue.release(taskId, {
      set: {
        status: 'pending',
        runner_id: null,
        token_hash: null,
        started_at: null,
        heartbeat_at: null,
      },
      where: (eb) => eb.and([eb('runner_id', '=', runnerId), eb('status', '=', 'running')]),
    });
    if (!released) return false;
    await this.#db.deleteFrom('ci_task_steps').where('task_id', '=', taskId).execute();
    return true;
  }

  /** Stores the final result of a task running for this runner; whether it was. */
  async complete(taskId: number, runnerId: string, result: CiTaskResult, now: number) {
    const done = await this.#db
      .updateTable('ci_tasks')
      // The task token dies with the task.
      .set({ status: result, stopped_at: now, updated_at: now, token_hash: null })
      .where('id', '=', taskId)
      .where('runner_id', '=', runnerId)
      .where('status', '=', 'running')
      .returning('id')
      .executeTakeFirst();
    return done !== undefined;
  }

  /**
   * Fails running tasks past their deadline or silent since `silentBefore`; what it failed. The
   * step that was running fails with its job, and those after it never ran.
   */
  async failZombies(now: number, silentBefore: number) {
    const failed = await this.#db
      .updateTable('ci_tasks')
      .set({ status: 'failure', stopped_at: now, updated_at: now, token_hash: null })
      .where(isZombie(now, silentBefore))
      .returning(['id', 'runner_id', 'run_id'])
      .execute();
    const ids = failed.map((task) => Number(task.id));
    if (ids.length > 0) {
      for (const [from, to] of [
        ['running', 'failure'],
        ['pending', 'skipped'],
      ] as const) {
        await this.#db
          .updateTable('ci_task_steps')
          .set({ status: to })
          .where('task_id', 'in', ids)
          .where('status', '=', from)
          .execute();
      }
    }
    return failed.map((task) => ({ runnerId: task.runner_id, runId: task.run_id }));
  }

  /** Cancels jobs still waiting whose last change is before `before`; their runs' ids. */
  async cancelWaitingSince(before: number, now: number): Promise<string[]> {
    const cancelled = await this.#db
      .updateTable('ci_tasks')
      .set({ status: 'cancelled', stopped_at: now, updated_at: now })
      .where(isWaitingSince(before))
      .returning('run_id')
      .execute();
    return cancelled.map((job) => job.run_id);
  }

  /**
   * The oldest pending, unheld jobs in a runner scope, with the labels they need; never a job of
   * a run that waits for approval (`runIsCleared`).
   */
  async listCandidates(scope: RunnerScope, limit: number) {
    let query = this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .innerJoin('repositories', 'repositories.id', 'workflow_runs.repo_id')
      .select(['ci_tasks.id', 'ci_tasks.runs_on'])
      .where('ci_tasks.status', '=', 'pending')
      .where('ci_tasks.runner_id', 'is', null)
      .where(runIsCleared());
    if (scope.kind === 'repository') {
      query = query.where('repositories.id', '=', scope.repoId);
    } else if (scope.kind === 'organisation') {
      query = query.where('repositories.owner_id', '=', scope.orgId);
    }
    const rows = await query.orderBy('ci_tasks.id').limit(limit).execute();
    return rows.map((row) => ({ id: Number(row.id), runsOn: parseStringArray(row.runs_on) }));
  }
}
