import type { Db } from '../../db/database.ts';
import type { CollaboratorPermission } from './repo.types.ts';

/** The `collaborators` rows: people given a permission on a repository they do not own. */
export class CollaboratorStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async findPermission(
    repoId: string,
    userId: string,
  ): Promise<CollaboratorPermission | undefined> {
    const row = await this.#db
      .selectFrom('collaborators')
      .select('permission')
      .where('repo_id', '=', repoId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.permission;
  }

  /** The person's collaborator permission on each of the given repositories that has one. */
  async listPermissionsOf(
    userId: string,
    repoIds: readonly string[],
  ): Promise<Map<string, CollaboratorPermission>> {
    if (repoIds.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('collaborators')
      .select(['repo_id', 'permission'])
      .where('user_id', '=', userId)
      .where('repo_id', 'in', [...new Set(repoIds)])
      .execute();
    return new Map(rows.map((row) => [row.repo_id, row.permission]));
  }

  async list(
    repoId: string,
  ): Promise<Array<{ userId: string; permission: CollaboratorPermission }>> {
    const rows = await this.#db
      .selectFrom('collaborators')
      .select(['user_id', 'permission'])
      .where('repo_id', '=', repoId)
      .orderBy('created_at')
      .execute();
    return rows.map((row) => ({ userId: row.user_id, permission: row.permission }));
  }

  async put(repoId: string, userId: string, permission: CollaboratorPermission): Promise<void> {
    await this.#db
      .insertInto('collaborators')
      .values({ repo_id: repoId, user_id: userId, permission, created_at: Date.now() })
      .onConflict((oc) => oc.columns(['repo_id', 'user_id']).doUpdateSet({ permission }))
      .execute();
  }

  async delete(repoId: string, userId: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('collaborators')
      .where('repo_id', '=', repoId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
