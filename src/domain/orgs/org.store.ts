import type { Db } from '../../db/database.ts';
import { insertAccount, type NewAccount } from '../users/user.store.ts';
import type { Account } from '../users/user.types.ts';

export type OrgRole = 'owner' | 'member';

/** The `org_members` rows, and the creation of an organisation with its first owner. */
export class OrgStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Inserts the organisation's account and its owner's membership in one transaction. */
  async insertWithOwner(org: NewAccount, ownerId: string): Promise<Account> {
    return this.#db.transaction().execute(async (trx) => {
      const account = await insertAccount(trx, org);
      await trx
        .insertInto('org_members')
        .values({ org_id: org.id, user_id: ownerId, role: 'owner', created_at: org.createdAt })
        .execute();
      return account;
    });
  }

  async findRole(orgId: string, userId: string): Promise<OrgRole | undefined> {
    const row = await this.#db
      .selectFrom('org_members')
      .select('role')
      .where('org_id', '=', orgId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.role;
  }

  /** Adds the person, or changes the role of one who is a member already. */
  async upsertMember(orgId: string, userId: string, role: OrgRole): Promise<void> {
    await this.#db
      .insertInto('org_members')
      .values({ org_id: orgId, user_id: userId, role, created_at: Date.now() })
      .onConflict((oc) => oc.columns(['org_id', 'user_id']).doUpdateSet({ role }))
      .execute();
  }

  async listMemberships(userId: string): Promise<Map<string, OrgRole>> {
    const rows = await this.#db
      .selectFrom('org_members')
      .select(['org_id', 'role'])
      .where('user_id', '=', userId)
      .execute();
    return new Map(rows.map((row) => [row.org_id, row.role]));
  }

  /** Members in the order they joined. */
  async listMembers(orgId: string): Promise<Array<{ userId: string; role: OrgRole }>> {
    const rows = await this.#db
      .selectFrom('org_members')
      .select(['user_id', 'role'])
      .where('org_id', '=', orgId)
      .orderBy('created_at')
      .execute();
    return rows.map((row) => ({ userId: row.user_id, role: row.role }));
  }
}
