import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import { AdminPolicy } from '../domain/admin/admin.policy.ts';
import type { EventBus } from '../domain/events.ts';
import { OrgService } from '../domain/orgs/org.service.ts';
import { OrgStore } from '../domain/orgs/org.store.ts';
import { LoginThrottleStore } from '../domain/sessions/login-throttle.store.ts';
import { LoginThrottle } from '../domain/sessions/login-throttle.ts';
import { SessionService } from '../domain/sessions/session.service.ts';
import { SessionStore } from '../domain/sessions/session.store.ts';
import { TokenService } from '../domain/tokens/token.service.ts';
import { TokenStore } from '../domain/tokens/token.store.ts';
import { UserService } from '../domain/users/user.service.ts';
import { UserStore } from '../domain/users/user.store.ts';

/** People and organisations, and how they sign in: users, admins, orgs, tokens, sessions. */
export function buildAccounts(config: Config, db: Database['db'], events: EventBus) {
  const userStore = new UserStore(db);
  const users = new UserService(userStore, config.adminHandles, config.ci.actionOwners);
  const admins = new AdminPolicy(config.adminHandles, config.ci.actionOwners);
  return {
    userStore,
    users,
    admins,
    orgs: new OrgService(new OrgStore(db, userStore), userStore, admins, events),
    tokens: new TokenService(new TokenStore(db), users),
    sessions: new SessionService(new SessionStore(db), users, config.auth.sessionLifetimeMs),
    loginThrottle: new LoginThrottle(new LoginThrottleStore(db), config.auth.login),
  };
}
