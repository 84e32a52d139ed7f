import type { Db } from '../../db/database.ts';
import { Conflict } from '../errors.ts';
import type { Account, NewAccount } from '../users/user.types.ts';
import { insertOwnersTeam } from './team.store.ts';

export type OrgRole = 'owner' | 'member';
export type OrgVisibility = 'public' | 'private';

/** What an organisation's settings hold beyond its account's name and description. */
export type OrgSettings = { readonly website: string; readonly visibility: OrgVisibility };

/**
 * How the users aggregate writes an account row through a transaction this store holds open:
 * an organisation is an account, made together with its first owner's membership.
 */
export type AccountRows = {
  insertIn(db: Db, account: NewAccount): Promise<Account>;
};

/** The `org_members` rows, and the creation of an organisation with its first owner. */
export class OrgStore {
  readonly #db: Db;
  readonly #accounts: AccountRows;

  constructor(db: Db, accounts: AccountRows) {
    this.#db = db;
    this.#accounts = accounts;
  }

  /**
   * Inserts the organisation's account, its Owners team and its owner's membership in one
   * transaction.
   */
  async insertWithOwner(
    org: NewAccount,
    ownerId: string,
    visibility: OrgVisibility = 'public',
  ): Promise<Account> {
    return this.#db.transaction().execute(async (trx) => {
      const account = await this.#accounts.insertIn(trx, org);
      if (visibility !== 'public') {
        await trx.updateTable('users').set({ visibility }).where('id', '=', org.id).execute();
      }
      await trx
        .insertInto('org_members')
        .values({ org_id: org.id, user_id: ownerId, role: 'owner', created_at: org.createdAt })
        .execute();
      await insertOwnersTeam(trx, org.id, org.createdAt);
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

  async findSettings(orgId: string): Promise<OrgSettings> {
    const row = await this.#db
      .selectFrom('users')
      .select(['website', 'visibility'])
      .where('id', '=', orgId)
      .executeTakeFirst();
    return { website: row?.website ?? '', visibility: row?.visibility ?? 'public' };
  }

  async updateSettings(
    orgId: string,
    settings: OrgSettings & { readonly fullName: string; readonly description: string },
  ): Promise<void> {
    await this.#db
      .updateTable('users')
      .set({
        full_name: settings.fullName,
        description: settings.description,
        website: settings.website,
        visibility: settings.visibility,
        updated_at: Date.now(),
      })
      .where('id', '=', orgId)
      .where('kind', '=', 'org')
      .execute();
  }

  /**
   * Changes a member's role to `role`, or removes them (`undefined`), refusing with a Conflict
   * when that would leave the organisation without an owner. The organisation's own row is
   * written first: on PostgreSQL that row lock queues concurrent membership changes of one
   * organisation behind each other (SQLite runs one write transaction at a time anyway), so two
   * owners removing each other at once cannot both succeed.
   */
  async changeMember(orgId: string, userId: string, role: OrgRole | undefined): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx
        .updateTable('users')
        .set({ updated_at: Date.now() })
        .where('id', '=', orgId)
        .execute();
      if (role === undefined) {
        // Who leaves the organisation leaves its teams: a team's members are its members.
        await trx
          .deleteFrom('team_members')
          .where('user_id', '=', userId)
          .where('team_id', 'in', (eb) =>
            eb.selectFrom('teams').select('id').where('org_id', '=', orgId),
          )
          .execute();
        await trx
          .deleteFrom('org_members')
          .where('org_id', '=', orgId)
          .where('user_id', '=', userId)
          .execute();
      } else {
        await trx
          .updateTable('org_members')
          .set({ role })
          .where('org_id', '=', orgId)
          .where('user_id', '=', userId)
          .execute();
      }
      const owners = await trx
        .selectFrom('org_members')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('org_id', '=', orgId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
      if (Number(owners.n) === 0) {
        throw new Conflict('an organisation keeps at least one owner');
      }
    });
  }

  /** Deletes the organisation's account; memberships and the rest go with it (cascades). */
  async deleteOrg(orgId: string): Promise<void> {
    await this.#db.deleteFrom('users').where('id', '=', orgId).where('kind', '=', 'org').execute();
  }

  /** How many repositories the organisation owns (from the counts triggers keep). */
  async countRepos(orgId: string): Promise<number> {
    const row = await this.#db
      .selectFrom('owner_repo_counts')
      .select('repositories')
      .where('owner_id', '=', orgId)
      .executeTakeFirst();
    return Number(row?.repositories ?? 0);
  }
}
