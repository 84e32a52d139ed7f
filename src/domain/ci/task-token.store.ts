import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.ts';
import type { TaskGrant } from './task-token.ts';

/** Queries behind task tokens: the hash lives on the task row while the task runs. */
export class TaskTokenStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /**
   * The running task whose token hashes to `tokenHash`, with its repository and level: read
   * only for a pull request from a fork, whose code nobody with write access has vetted.
   */
  async findRunningGrant(tokenHash: string): Promise<TaskGrant | undefined> {
    return this.#runningGrant('ci_tasks.token_hash', tokenHash);
  }

  /** The same, for a task named by its id (a verified runtime token names one). */
  async findRunningGrantOfTask(taskId: number): Promise<TaskGrant | undefined> {
    return this.#runningGrant('ci_tasks.id', taskId);
  }

  async #runningGrant(
    column: 'ci_tasks.token_hash' | 'ci_tasks.id',
    value: string | number,
  ): Promise<TaskGrant | undefined> {
    const row = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .select(['ci_tasks.id', 'workflow_runs.repo_id', 'workflow_runs.fork_pull'])
      .where(column, '=', value)
      .where('ci_tasks.status', '=', 'running')
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const level = row.fork_pull ? 'read' : 'write';
    return { taskId: Number(row.id), repoId: row.repo_id, level };
  }
}
