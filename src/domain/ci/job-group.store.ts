import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.ts';
import { isWaitingSince, isZombie } from './task-conditions.ts';

/** An unfinished job of a `concurrency` group, as admission and release look at it. */
export type GroupMember = {
  readonly id: number;
  readonly runId: string;
  readonly status: 'blocked' | 'pending' | 'running';
  /** Blocked waiting for the group (not merely for its `needs`). */
  readonly queued: boolean;
};

/**
 * Queries over job-level `concurrency` groups (`ci_tasks.concurrency_group`, per repository).
 * The group's invariant — at most one job pending or running, at most one queued — is kept by
 * RunLifecycle under `lock`, the repository's CI lock.
 */
export class JobGroupStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /**
   * Takes the repository's CI lock until the transaction ends: the row of its run counter, which
   * creating a run locks first too. On PostgreSQL this serialises admissions, releases and
   * claims of one repository's groups across replicas; SQLite has a single writer anyway.
   */
  async lock(repoId: string): Promise<void> {
    await this.#db
      .updateTable('ci_run_counters')
      .set((eb) => ({ last_number: eb.ref('last_number') }))
      .where('repo_id', '=', repoId)
      .execute();
  }

  /** The unfinished jobs of a group, oldest first. */
  async listUnfinished(repoId: string, group: string): Promise<GroupMember[]> {
    const rows = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .select(['ci_tasks.id', 'ci_tasks.run_id', 'ci_tasks.status', 'ci_tasks.concurrency_queued'])
      .where('workflow_runs.repo_id', '=', repoId)
      .where('ci_tasks.concurrency_group', '=', group)
      .where('ci_tasks.status', 'in', ['blocked', 'pending', 'running'])
      .orderBy('ci_tasks.id')
      .execute();
    return rows.map((row) => ({
      id: Number(row.id),
      runId: row.run_id,
      status: row.status as GroupMember['status'],
      queued: Boolean(row.concurrency_queued),
    }));
  }

  /** A blocked job starts waiting for its group. */
  async markQueued(taskId: number, now: number): Promise<void> {
    await this.#db
      .updateTable('ci_tasks')
      .set({ concurrency_queued: true, updated_at: now })
      .where('id', '=', taskId)
      .where('status', '=', 'blocked')
      .execute();
  }

  /** The repository of a job and its group (null without one), or undefined for no such job. */
  async findGroupOf(taskId: number): Promise<{ repoId: string; group: string | null } | undefined> {
    const row = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .select(['workflow_runs.repo_id', 'ci_tasks.concurrency_group'])
      .where('ci_tasks.id', '=', taskId)
      .executeTakeFirst();
    return row === undefined ? undefined : { repoId: row.repo_id, group: row.concurrency_group };
  }

  /**
   * The repositories, in a fixed order, whose `concurrency`-grouped jobs the zombie sweep would
   * fail now (`CiTaskStore.failZombies`), or the abandoned-job sweep cancel: a sweep takes their CI locks before it changes
   * any job, in the order admissions and claims take them.
   */
  async reposToSweep(
    sweep: { zombies: { now: number; silentBefore: number } } | { waitingSince: number },
  ): Promise<string[]> {
    const condition =
      'zombies' in sweep
        ? isZombie(sweep.zombies.now, sweep.zombies.silentBefore)
        : isWaitingSince(sweep.waitingSince);
    const rows = await this.#db
      .selectFrom('workflow_runs')
      .select('repo_id')
      .distinct()
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('ci_tasks')
          .select('run_id')
          .where(condition)
          .where('concurrency_group', 'is not', null),
      )
      .orderBy('repo_id')
      .execute();
    return rows.map((row) => row.repo_id);
  }
}
