import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables.ts';
import type { TaskGrant } from './task-token.ts';
import { decodePermissions, tokenBoundsOf } from './workflow/permissions.ts';

/** Queries behind task tokens: the hash lives on the task row while the task runs. */
export class TaskTokenStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /**
   * The running task whose token hashes to `tokenHash`, with its repository, level and scopes:
   * what its job's `permissions:` allow, and at most read for a pull request from a fork, whose
   * code nobody with write access has vetted (`tokenBoundsOf`).
   */
  async findRunningGrant(tokenHash: string): Promise<TaskGrant | undefined> {
    const row = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .select([
        'ci_tasks.id',
        'ci_tasks.permissions',
        'workflow_runs.repo_id',
        'workflow_runs.fork_pull',
      ])
      .where('ci_tasks.token_hash', '=', tokenHash)
      .where('ci_tasks.status', '=', 'running')
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const { level, scopes } = tokenBoundsOf(
      decodePermissions(row.permissions),
      Boolean(row.fork_pull),
    );
    return { taskId: Number(row.id), repoId: row.repo_id, level, scopes };
  }
}
