import type { User } from '../users/user.types.ts';

/**
 * Who administers the instance: a signed-in person whose handle is listed in
 * SERVICE_ADMIN_HANDLES, or one made an administrator from the admin pages (stored on their
 * account, `siteAdmin`). The list is authoritative for the handles it names: the database can
 * add administrators but never take a listed one away. An empty list and no stored flag means
 * nobody is.
 *
 * It also knows the action owners (SERVICE_CI_ACTION_OWNERS): the accounts whose repositories
 * runners fetch for a host-less `uses: owner/repo@ref`. Code published there runs in other
 * people's jobs with their tokens, so those names belong to administrators alone.
 */
export class AdminPolicy {
  readonly #handles: ReadonlySet<string>;
  readonly #actionOwners: ReadonlySet<string>;

  constructor(handles: readonly string[], actionOwners: readonly string[] = []) {
    this.#handles = new Set(handles.map((handle) => handle.toLowerCase()));
    this.#actionOwners = new Set(actionOwners.map((handle) => handle.toLowerCase()));
  }

  isAdmin(user: User | undefined): boolean {
    return user !== undefined && (user.siteAdmin === true || this.isListed(user));
  }

  /** Whether SERVICE_ADMIN_HANDLES names this person (an administrator nobody can unmake). */
  isListed(user: Pick<User, 'handle'>): boolean {
    return this.#handles.has(user.handle.toLowerCase());
  }

  /** Whether the account under this handle is an action owner (any letter case). */
  isActionOwner(handle: string): boolean {
    return this.#actionOwners.has(handle.toLowerCase());
  }

  /** The action owners, lower case, as configured. */
  actionOwners(): readonly string[] {
    return [...this.#actionOwners];
  }
}
