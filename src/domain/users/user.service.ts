import { newId } from '../../lib/ids.ts';
import { Conflict, Invalid, NotFound } from '../errors.ts';
import { assertValidHandle } from './handle.ts';
import { hashPassword, verifyNothing, verifyPassword } from './password.ts';
import type { UserStore } from './user.store.ts';
import { type Account, asPerson, isUser, type User } from './user.types.ts';

export type CreateUserInput = {
  handle: string;
  email: string;
  password: string;
  fullName?: string;
};

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;
export const MIN_PASSWORD_LENGTH = 8;
const MAX_PASSWORD_LENGTH = 1024;

function assertPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new Invalid(
      `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
    );
  }
}

/** The fields of a new person, checked without the database (so they say nothing of it). */
function checkNewUser(input: CreateUserInput): { handle: string; email: string; fullName: string } {
  assertValidHandle(input.handle);
  const email = input.email.trim();
  if (email.length > 254 || !EMAIL.test(email)) throw new Invalid('email is not a valid address');
  assertPassword(input.password);
  const fullName = (input.fullName ?? '').trim();
  if (fullName.length > 100) throw new Invalid('full name must be at most 100 characters');
  return { handle: input.handle, email, fullName };
}

/**
 * The address of a person who signed up with one another account holds: of the reserved
 * `.invalid` domain (RFC 2606), so it reaches no mailbox, matches no commit and is nobody's.
 */
export function unrecordedAddress(id: string): string {
  return `${id}@unrecorded.invalid`;
}

/** People: sign-up, sign-in, profiles. Organisations share the handle namespace (OrgService). */
export class UserService {
  readonly #store: UserStore;
  readonly #adminHandles: ReadonlySet<string>;
  readonly #actionOwners: ReadonlySet<string>;

  /**
   * `adminHandles`: SERVICE_ADMIN_HANDLES, and `actionOwners`: SERVICE_CI_ACTION_OWNERS, which
   * nobody may claim by signing up.
   */
  constructor(
    store: UserStore,
    adminHandles: readonly string[] = [],
    actionOwners: readonly string[] = [],
  ) {
    this.#store = store;
    this.#adminHandles = new Set(adminHandles.map((handle) => handle.toLowerCase()));
    this.#actionOwners = new Set(actionOwners.map((handle) => handle.toLowerCase()));
  }

  /**
   * Self-service sign-up. An admin is whoever holds a handle listed in SERVICE_ADMIN_HANDLES,
   * so a listed handle nobody holds yet would make its first claimant an administrator; and
   * runners fetch host-less actions from the repositories of an action owner, so its first
   * claimant would publish code into other people's jobs. Both are refused here, as reserved,
   * in any letter case; only the operator creates them (`createUser`, CLI).
   *
   * Invariant: the answer does not depend on whether the address belongs to an account. An
   * address is its holder's sign-in name and commit identity, first come first served, and
   * Kiln has no mail to let anyone prove one; so a sign-up with a held address still creates
   * the account, without the address (`recorded: false`; it gets `unrecordedAddress`). Both
   * paths do the same work — one look-up of the name and one of the address, one password
   * hash, one insert — so neither the answer nor its time tells them apart. Only a taken
   * username, public anyway, is refused.
   */
  async signUp(input: CreateUserInput): Promise<{ user: User; recorded: boolean }> {
    const wanted = input.handle.trim().toLowerCase();
    if (this.#adminHandles.has(wanted) || this.#actionOwners.has(wanted)) {
      throw new Invalid(`username "${input.handle}" is reserved`);
    }
    const checked = checkNewUser(input);
    const [named, held, passwordHash] = await Promise.all([
      this.#store.findByHandle(checked.handle),
      this.#store.holdsEmail(checked.email),
      hashPassword(input.password),
    ]);
    if (named) throw new Conflict(`username "${checked.handle}" is already taken`);
    const id = newId();
    const insert = (email: string) =>
      this.#store.insert({
        ...checked,
        id,
        kind: 'user',
        email,
        passwordHash,
        createdAt: Date.now(),
      });
    if (held) return { user: asPerson(await insert(unrecordedAddress(id))), recorded: false };
    try {
      return { user: asPerson(await insert(checked.email)), recorded: true };
    } catch (error) {
      // Someone took the name or the address since the look-ups: the name is refused as above,
      // the address is treated as held.
      if (!(error instanceof Conflict) || (await this.#store.findByHandle(checked.handle)))
        throw error;
      return { user: asPerson(await insert(unrecordedAddress(id))), recorded: false };
    }
  }

  /** Listed admin handles that no account holds (start-up warns about each). */
  async unclaimedAdminHandles(): Promise<string[]> {
    const unclaimed: string[] = [];
    for (const handle of this.#adminHandles) {
      if (!(await this.findAccount(handle))) unclaimed.push(handle);
    }
    return unclaimed;
  }

  /** Creates a person as the operator does (CLI, set-up); sign-up goes through `signUp`. */
  async createUser(input: CreateUserInput): Promise<User> {
    const checked = checkNewUser(input);
    const account = await this.#store.insert({
      ...checked,
      id: newId(),
      kind: 'user',
      passwordHash: await hashPassword(input.password),
      createdAt: Date.now(),
    });
    return asPerson(account);
  }

  /** The person with this handle or email and password, or undefined (never says which was wrong). */
  async authenticate(login: string, password: string): Promise<User | undefined> {
    const credentials = await this.#store.findCredentials(login.trim());
    const matches = credentials
      ? await verifyPassword(password, credentials.passwordHash)
      : await verifyNothing(password);
    if (!credentials || !matches) return undefined;
    return this.findActiveUser(credentials.id);
  }

  /**
   * The person with this id if they may act: a person, not an organisation, and not disabled.
   * Sign-in, sessions and tokens (and so git over HTTP) all resolve who is acting through here,
   * so disabling someone shuts every way in at once and re-enabling opens them again.
   */
  async findActiveUser(id: string): Promise<User | undefined> {
    const account = await this.#store.findActiveUserById(id);
    return account && isUser(account) ? account : undefined;
  }

  /** Whether an operator has disabled this person (never true of an organisation). */
  async isDisabled(account: Account): Promise<boolean> {
    return this.#store.isDisabled(account.id);
  }

  /** Every person, by handle, with when each was disabled (null while in use). */
  /** How many people have an account (NodeInfo's usage figure). */
  async countPeople(): Promise<number> {
    return this.#store.countPeople();
  }

  async listUsers(): Promise<{ user: User; disabledAt: Date | null }[]> {
    const rows = await this.#store.listUsers();
    return rows.flatMap(({ account, disabledAt }) =>
      isUser(account) ? [{ user: account, disabledAt }] : [],
    );
  }

  /** Disables a person (they can no longer sign in or use their sessions and tokens), or not. */
  async setDisabled(user: User, disabled: boolean): Promise<void> {
    await this.#store.setDisabledAt(user.id, disabled ? Date.now() : null);
  }

  /** An operator's reset: a new password without the current one. */
  async setPassword(user: User, next: string): Promise<void> {
    assertPassword(next);
    await this.#store.updatePasswordHash(user.id, await hashPassword(next), Date.now());
  }

  async changePassword(user: User, current: string, next: string): Promise<void> {
    const credentials = await this.#store.findCredentials(user.handle);
    if (!credentials || !(await verifyPassword(current, credentials.passwordHash))) {
      throw new Invalid('current password is wrong');
    }
    assertPassword(next);
    await this.#store.updatePasswordHash(user.id, await hashPassword(next), Date.now());
  }

  async updateProfile(
    user: User,
    profile: { fullName: string; description: string },
  ): Promise<void> {
    const fullName = profile.fullName.trim();
    const description = profile.description.trim();
    if (fullName.length > 100) throw new Invalid('full name must be at most 100 characters');
    if (description.length > 255) throw new Invalid('description must be at most 255 characters');
    await this.#store.updateProfile(user.id, { fullName, description }, Date.now());
  }

  /** A person or organisation by handle (any case); NotFound otherwise. */
  async getAccount(handle: string): Promise<Account> {
    const account = await this.findAccount(handle);
    if (!account) throw new NotFound(`user does not exist [name: ${handle}]`);
    return account;
  }

  async findAccount(handle: string): Promise<Account | undefined> {
    if (handle.length === 0 || handle.length > 100) return undefined;
    return this.#store.findByHandle(handle);
  }

  async getUser(handle: string): Promise<User> {
    const account = await this.getAccount(handle);
    if (!isUser(account)) throw new NotFound(`user does not exist [name: ${handle}]`);
    return account;
  }

  async findById(id: string): Promise<Account | undefined> {
    return this.#store.findById(id);
  }

  async findManyByIds(ids: readonly string[]): Promise<Map<string, Account>> {
    return this.#store.findManyByIds(ids);
  }

  async search(query: string, limit: number): Promise<Account[]> {
    return this.#store.search(query, limit);
  }
}
