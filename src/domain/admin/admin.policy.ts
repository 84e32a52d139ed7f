import type { User } from '../users/user.types.ts';

/**
 * There is no stored admin role (SPEC.md): an admin is a signed-in person whose handle is listed
 * in SERVICE_ADMIN_HANDLES. An empty list means nobody is.
 */
export class AdminPolicy {
  readonly #handles: ReadonlySet<string>;

  constructor(handles: readonly string[]) {
    this.#handles = new Set(handles.map((handle) => handle.toLowerCase()));
  }

  isAdmin(user: User | undefined): boolean {
    return user !== undefined && this.#handles.has(user.handle.toLowerCase());
  }
}
