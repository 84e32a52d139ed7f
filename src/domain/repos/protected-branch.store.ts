import type { Db } from '../../db/database.ts';
import type { ProtectedBranchRecord } from './repo.types.ts';

/** The `protected_branches` rows: branch names, per repository, that refuse force and deletion. */
export class ProtectedBranchStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async listNames(repoId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('protected_branches')
      .select('branch')
      .where('repo_id', '=', repoId)
      .orderBy('branch')
      .execute();
    return rows.map((row) => row.branch);
  }

  /** Protected branches with the time each was protected, by name. */
  async listRecords(repoId: string): Promise<ProtectedBranchRecord[]> {
    const rows = await this.#db
      .selectFrom('protected_branches')
      .select(['branch', 'created_at'])
      .where('repo_id', '=', repoId)
      .orderBy('branch')
      .execute();
    return rows.map((row) => ({ branch: row.branch, createdAt: new Date(Number(row.created_at)) }));
  }

  /** Whether the branch was newly protected (false when it already was). */
  async add(repoId: string, branch: string): Promise<boolean> {
    const result = await this.#db
      .insertInto('protected_branches')
      .values({ repo_id: repoId, branch, created_at: Date.now() })
      .onConflict((oc) => oc.columns(['repo_id', 'branch']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** Whether there was such a protected branch. */
  async remove(repoId: string, branch: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('protected_branches')
      .where('repo_id', '=', repoId)
      .where('branch', '=', branch)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
