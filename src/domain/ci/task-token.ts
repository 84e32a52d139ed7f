import type { Db } from '../../db/database.ts';
import { sha256Hex } from '../../lib/crypto.ts';

/** What a task token grants while its task runs. */
export type TaskGrant = {
  readonly taskId: number;
  /** The one repository the token works for. */
  readonly repoId: string;
};

/**
 * Task tokens (`GITHUB_TOKEN`, `GITEA_TOKEN`, `github.token`): 40 hex characters made when a
 * runner claims a job, stored only as SHA-256, and valid only while the task is running — the
 * hash is cleared when the task ends in any way (result, cancel, sweep), so a leaked token dies
 * with its job. A token grants reading its own repository and nothing else.
 */
export class CiTaskTokens {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** The grant of a live task token, or undefined for anything else. */
  async authenticate(token: string): Promise<TaskGrant | undefined> {
    if (!/^[0-9a-f]{40}$/.test(token)) return undefined;
    const row = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .select(['ci_tasks.id', 'workflow_runs.repo_id'])
      .where('ci_tasks.token_hash', '=', sha256Hex(token))
      .where('ci_tasks.status', '=', 'running')
      .executeTakeFirst();
    return row === undefined ? undefined : { taskId: Number(row.id), repoId: row.repo_id };
  }
}
