import type { User } from '../users/user.types.ts';

/**
 * Who administers the instance: a signed-in person whose handle is listed in
 * SERVICE_ADMIN_HANDLES, or one made an administrator from the admin pages (stored on their
 * account, `siteAdmin`). The list is authoritative for the handles it names: the database can
 * add administrators but never take a listed one away. An empty list and no stored flag means
 * nobody is.
 */
export class AdminPolicy {
  readonly #handles: ReadonlySet<string>;

  constructor(handles: readonly string[]) {
    this.#handles = new Set(handles.map((handle) => handle.toLowerCase()));
  }

  isAdmin(user: User | undefined): boolean {
    return user !== undefined && (user.siteAdmin === true || this.isListed(user));
  }

  /** Whether SERVICE_ADMIN_HANDLES names this person (an administrator nobody can unmake). */
  isListed(user: Pick<User, 'handle'>): boolean {
    return this.#handles.has(user.handle.toLowerCase());
  }
}
