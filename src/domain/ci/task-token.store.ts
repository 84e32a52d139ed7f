import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.ts';
import { decodePermissions, type Permissions } from './workflow/permissions.ts';

/** A running task as its token is judged: where it runs, for whom, and what its job allows. */
export type RunningTask = {
  readonly taskId: number;
  readonly repoId: string;
  readonly permissions: Permissions;
  /** The run is for a pull request from a fork. */
  readonly forkPull: boolean;
  /** Who triggered the run (an account id), when known. */
  readonly actorId: string | null;
};

/** Queries behind task tokens: the hash lives on the task row while the task runs. */
export class TaskTokenStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** The running task whose token hashes to `tokenHash`. */
  findRunning(tokenHash: string): Promise<RunningTask | undefined> {
    return this.#running('ci_tasks.token_hash', tokenHash);
  }

  /** The same, for a task named by its id (a verified runtime token names one). */
  findRunningTask(taskId: number): Promise<RunningTask | undefined> {
    return this.#running('ci_tasks.id', taskId);
  }

  async #running(
    column: 'ci_tasks.token_hash' | 'ci_tasks.id',
    value: string | number,
  ): Promise<RunningTask | undefined> {
    const row = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .select([
        'ci_tasks.id',
        'ci_tasks.permissions',
        'workflow_runs.repo_id',
        'workflow_runs.fork_pull',
        'workflow_runs.triggered_by',
      ])
      .where(column, '=', value)
      .where('ci_tasks.status', '=', 'running')
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      taskId: Number(row.id),
      repoId: row.repo_id,
      permissions: decodePermissions(row.permissions),
      forkPull: Boolean(row.fork_pull),
      actorId: row.triggered_by,
    };
  }
}
