import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';
import { Invalid, NotFound } from '../errors.ts';
import { assertValidHandle } from '../users/handle.ts';
import { UserStore } from '../users/user.store.ts';
import type { Account, User } from '../users/user.types.ts';

export type OrgRole = 'owner' | 'member';

/** Organisations: accounts that own repositories on behalf of their owner members. */
export class OrgService {
  readonly #db: Db;
  readonly #users: UserStore;

  constructor(db: Db, users: UserStore) {
    this.#db = db;
    this.#users = users;
  }

  async createOrg(input: { name: string; owner: User; fullName?: string }): Promise<Account> {
    assertValidHandle(input.name, 'organisation name');
    const fullName = (input.fullName ?? '').trim();
    if (fullName.length > 100) throw new Invalid('full name must be at most 100 characters');
    const now = Date.now();
    const id = newId();
    return this.#db.transaction().execute(async (trx) => {
      const org = await new UserStore(trx).insert({
        id,
        handle: input.name,
        handle_lower: input.name.toLowerCase(),
        kind: 'org',
        email: null,
        email_lower: null,
        full_name: fullName,
        description: '',
        password_hash: null,
        created_at: now,
        updated_at: now,
      });
      await trx
        .insertInto('org_members')
        .values({ org_id: id, user_id: input.owner.id, role: 'owner', created_at: now })
        .execute();
      return org;
    });
  }

  async getOrg(name: string): Promise<Account> {
    const account = await this.#users.findByHandle(name);
    if (account?.kind !== 'org') throw new NotFound(`org does not exist [name: ${name}]`);
    return account;
  }

  /** The person's role in the organisation, or undefined when not a member. */
  async roleOf(orgId: string, userId: string): Promise<OrgRole | undefined> {
    const row = await this.#db
      .selectFrom('org_members')
      .select('role')
      .where('org_id', '=', orgId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.role;
  }

  async addMember(org: Account, user: User, role: OrgRole): Promise<void> {
    await this.#db
      .insertInto('org_members')
      .values({ org_id: org.id, user_id: user.id, role, created_at: Date.now() })
      .onConflict((oc) => oc.columns(['org_id', 'user_id']).doUpdateSet({ role }))
      .execute();
  }

  /** Ids of the organisations the person belongs to, with their role. */
  async membershipsOf(userId: string): Promise<Map<string, OrgRole>> {
    const rows = await this.#db
      .selectFrom('org_members')
      .select(['org_id', 'role'])
      .where('user_id', '=', userId)
      .execute();
    return new Map(rows.map((row) => [row.org_id, row.role]));
  }

  async listMembers(org: Account): Promise<Array<{ userId: string; role: OrgRole }>> {
    const rows = await this.#db
      .selectFrom('org_members')
      .select(['user_id', 'role'])
      .where('org_id', '=', org.id)
      .orderBy('created_at')
      .execute();
    return rows.map((row) => ({ userId: row.user_id, role: row.role }));
  }
}
