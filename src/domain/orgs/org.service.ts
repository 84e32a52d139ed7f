import { newId } from '../../lib/ids.ts';
import { Invalid, NotFound } from '../errors.ts';
import { assertValidHandle } from '../users/handle.ts';
import type { UserStore } from '../users/user.store.ts';
import type { Account, User } from '../users/user.types.ts';
import type { OrgRole, OrgStore } from './org.store.ts';

export type { OrgRole };

/** Organisations: accounts that own repositories on behalf of their owner members. */
export class OrgService {
  readonly #store: OrgStore;
  readonly #users: UserStore;

  constructor(store: OrgStore, users: UserStore) {
    this.#store = store;
    this.#users = users;
  }

  async createOrg(input: { name: string; owner: User; fullName?: string }): Promise<Account> {
    assertValidHandle(input.name, 'organisation name');
    const fullName = (input.fullName ?? '').trim();
    if (fullName.length > 100) throw new Invalid('full name must be at most 100 characters');
    return this.#store.insertWithOwner(
      {
        id: newId(),
        handle: input.name,
        kind: 'org',
        email: null,
        fullName,
        passwordHash: null,
        createdAt: Date.now(),
      },
      input.owner.id,
    );
  }

  async getOrg(name: string): Promise<Account> {
    const account = await this.#users.findByHandle(name);
    if (account?.kind !== 'org') throw new NotFound(`org does not exist [name: ${name}]`);
    return account;
  }

  /** The person's role in the organisation, or undefined when not a member. */
  async roleOf(orgId: string, userId: string): Promise<OrgRole | undefined> {
    return this.#store.findRole(orgId, userId);
  }

  async addMember(org: Account, user: User, role: OrgRole): Promise<void> {
    await this.#store.upsertMember(org.id, user.id, role);
  }

  /** Ids of the organisations the person belongs to, with their role. */
  async membershipsOf(userId: string): Promise<Map<string, OrgRole>> {
    return this.#store.listMemberships(userId);
  }

  async listMembers(org: Account): Promise<Array<{ userId: string; role: OrgRole }>> {
    return this.#store.listMembers(org.id);
  }
}
