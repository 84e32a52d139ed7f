import { randomBytes } from 'node:crypto';
import type { App } from '../../src/app.ts';
import type { TokenOptions } from '../../src/domain/tokens/token.service.ts';
import type { Account, User } from '../../src/domain/users/user.types.ts';

let counter = 0;
function unique(prefix: string): string {
  counter += 1;
  return `${prefix}${counter}-${randomBytes(3).toString('hex')}`;
}

/** Test data made through the domain services, so every invariant holds. */
export class Factories {
  readonly #app: App;

  constructor(app: App) {
    this.#app = app;
  }

  async user(
    overrides: { handle?: string; email?: string; password?: string; fullName?: string } = {},
  ) {
    const handle = overrides.handle ?? unique('user');
    const password = overrides.password ?? 'correct horse battery';
    const user = await this.#app.services.users.createUser({
      handle,
      email: overrides.email ?? `${handle}@example.test`,
      password,
      fullName: overrides.fullName ?? '',
    });
    return { user, password };
  }

  /** A person with a personal access token: the usual API caller. */
  async userWithToken(overrides: { handle?: string } = {}) {
    const { user, password } = await this.user(overrides);
    const token = await this.token(user);
    return { user, password, token };
  }

  /** A token with every scope unless `options` narrow it (scopes, an expiry). */
  async token(user: User, name = unique('token'), options: TokenOptions = {}): Promise<string> {
    return (await this.#app.services.tokens.create(user, name, options)).token;
  }

  async org(owner: User, name = unique('org')): Promise<Account> {
    return this.#app.services.orgs.createOrg({ name, owner });
  }
}
