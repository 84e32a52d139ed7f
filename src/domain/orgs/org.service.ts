import { newId } from '../../lib/ids.ts';
import type { AdminPolicy } from '../admin/admin.policy.ts';
import { Conflict, Forbidden, Invalid, NotFound } from '../errors.ts';
import type { EventPublisher } from '../events.ts';
import { mayAdministerOrg } from '../repos/repo.policy.ts';
import { isActionsBot } from '../users/actions-bot.ts';
import { assertValidHandle } from '../users/handle.ts';
import { type Account, isUser, type User } from '../users/user.types.ts';
import type { OrgRole, OrgSettings, OrgStore, OrgVisibility } from './org.store.ts';
import { type OrgSettingsInput, parseOrgSettings } from './org-input.ts';

export type { OrgRole, OrgSettings, OrgVisibility };

/** An organisation as one viewer sees it: its settings and the viewer's place in it. */
export type OrgView = {
  readonly org: Account;
  readonly settings: OrgSettings;
  /** The viewer's role, undefined when they are not a member. */
  readonly role: OrgRole | undefined;
  /** Whether the viewer may change it: an owner, or an instance administrator. */
  readonly canAdminister: boolean;
};

/** The accounts the organisations' use cases look up, handed in by the composition root. */
export type AccountLookup = {
  findByHandle(handle: string): Promise<Account | undefined>;
  findById(id: string): Promise<Account | undefined>;
};

/**
 * Organisations: accounts that own repositories on behalf of their members. Owners (and
 * instance administrators) change settings and membership; an organisation always keeps at
 * least one owner. A private organisation is NotFound to everyone but its members and
 * administrators, the same answer as one that does not exist.
 */
export class OrgService {
  readonly #store: OrgStore;
  readonly #users: AccountLookup;
  readonly #admins: AdminPolicy | undefined;
  /** Where changes of settings (`org.changed`) and deletions (`org.deleted`) are announced. */
  readonly #events: EventPublisher | undefined;

  constructor(
    store: OrgStore,
    users: AccountLookup,
    admins?: AdminPolicy,
    events?: EventPublisher,
  ) {
    this.#store = store;
    this.#users = users;
    this.#admins = admins;
    this.#events = events;
  }

  /**
   * Creates an organisation with `owner` as its first owner. `byOperator` is the command line,
   * which acts for the instance's administrators whoever the first owner is.
   */
  async createOrg(input: {
    name: string;
    owner: User;
    fullName?: string;
    visibility?: OrgVisibility;
    byOperator?: boolean;
  }): Promise<Account> {
    assertValidHandle(input.name, 'organisation name');
    // A CI task's token acts on its task's repository only (repo.policy.ts, mayCreateRepos).
    if (isActionsBot(input.owner)) throw new Forbidden('a task token cannot create organisations');
    const admins = this.#admins;
    // A listed admin handle is kept for the person the operator creates under it (UserService).
    const adminHandle = admins?.isListed({ handle: input.name }) === true;
    // An action owner's repositories are what runners fetch for host-less `uses:`: only an
    // administrator (or the operator) may create one (repo.policy.ts keeps its writes theirs).
    const actionOwner =
      admins?.isActionOwner(input.name) === true &&
      input.byOperator !== true &&
      !admins.isAdmin(input.owner);
    if (adminHandle || actionOwner) {
      throw new Invalid(`organisation name "${input.name}" is reserved`);
    }
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
      input.visibility ?? 'public',
    );
  }

  async getOrg(name: string): Promise<Account> {
    const account = await this.#users.findByHandle(name);
    if (account?.kind !== 'org') throw new NotFound(`org does not exist [name: ${name}]`);
    return account;
  }

  /** The organisation as `viewer` may see it; NotFound when missing or private to them. */
  async view(viewer: User | undefined, name: string): Promise<OrgView> {
    const org = await this.getOrg(name);
    return this.viewOf(viewer, org);
  }

  /** `view` for an organisation already loaded. */
  async viewOf(viewer: User | undefined, org: Account): Promise<OrgView> {
    const [settings, role] = await Promise.all([
      this.#store.findSettings(org.id),
      viewer ? this.#store.findRole(org.id, viewer.id) : undefined,
    ]);
    const isAdmin = this.#admins?.isAdmin(viewer) === true;
    if (settings.visibility === 'private' && role === undefined && !isAdmin) {
      throw new NotFound(`org does not exist [name: ${org.handle}]`);
    }
    const actionOwner = this.#admins?.isActionOwner(org.handle) === true;
    return { org, settings, role, canAdminister: mayAdministerOrg(role, isAdmin, actionOwner) };
  }

  /** The organisation when `actor` may change it; NotFound if they cannot see it, else Forbidden. */
  async administered(actor: User, name: string): Promise<OrgView> {
    const view = await this.view(actor, name);
    if (!view.canAdminister) throw new Forbidden('only owners of the organisation may do that');
    return view;
  }

  async updateSettings(actor: User, name: string, input: OrgSettingsInput): Promise<void> {
    const { org } = await this.administered(actor, name);
    await this.#store.updateSettings(org.id, parseOrgSettings(input));
    const after = (await this.#users.findById(org.id)) ?? org;
    await this.#events?.publish('org.changed', { before: org, after });
  }

  /**
   * Deletes the organisation. Like Gitea, one that still owns repositories is refused: they are
   * deleted or moved first, so no repository is lost by deleting its owner.
   */
  async deleteOrg(actor: User, name: string): Promise<void> {
    const { org } = await this.administered(actor, name);
    if ((await this.#store.countRepos(org.id)) > 0) {
      throw new Conflict(`${org.handle} still owns repositories; delete them first`);
    }
    await this.#store.deleteOrg(org.id);
    await this.#events?.publish('org.deleted', org);
  }

  /** Adds a person by handle with a role; someone already a member keeps theirs (Conflict). */
  async addMemberByHandle(actor: User, name: string, handle: string, role: OrgRole): Promise<User> {
    const { org } = await this.administered(actor, name);
    const person = await this.#person(handle);
    if ((await this.#store.findRole(org.id, person.id)) !== undefined) {
      throw new Conflict(`${person.handle} is already a member`);
    }
    await this.#store.upsertMember(org.id, person.id, role);
    return person;
  }

  /** Changes a member's role; the last owner cannot be made a plain member (Conflict). */
  async setRole(actor: User, name: string, handle: string, role: OrgRole): Promise<User> {
    const { org } = await this.administered(actor, name);
    const person = await this.#member(org, handle);
    await this.#store.changeMember(org.id, person.id, role);
    return person;
  }

  /** Removes a member; the last owner cannot be removed (Conflict). */
  async removeMember(actor: User, name: string, handle: string): Promise<User> {
    const { org } = await this.administered(actor, name);
    const person = await this.#member(org, handle);
    await this.#store.changeMember(org.id, person.id, undefined);
    return person;
  }

  /**
   * The operator's membership change (`kiln org add-member` / `remove-member`), which no account
   * makes, so no permission applies; the rules still do: a role given to a member replaces theirs,
   * removing a non-member is NotFound, and leaving the organisation without an owner is a
   * Conflict. Answers the person and their role before.
   */
  async changeMemberByOperator(
    name: string,
    handle: string,
    role: OrgRole | undefined,
  ): Promise<{ person: User; before: OrgRole | undefined }> {
    const org = await this.getOrg(name);
    const person =
      role === undefined ? await this.#member(org, handle) : await this.#person(handle);
    const before = await this.#store.findRole(org.id, person.id);
    if (before === undefined && role !== undefined) {
      await this.#store.upsertMember(org.id, person.id, role);
    } else if (before !== role) {
      await this.#store.changeMember(org.id, person.id, role);
    }
    return { person, before };
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

  async #person(handle: string): Promise<User> {
    const account = await this.#users.findByHandle(handle.trim());
    if (account === undefined || !isUser(account)) {
      throw new NotFound(`user does not exist [name: ${handle}]`);
    }
    return account;
  }

  async #member(org: Account, handle: string): Promise<User> {
    const person = await this.#person(handle);
    if ((await this.#store.findRole(org.id, person.id)) === undefined) {
      throw new NotFound(`${person.handle} is not a member of ${org.handle}`);
    }
    return person;
  }
}
