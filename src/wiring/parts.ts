import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import type { AdminPolicy } from '../domain/admin/admin.policy.ts';
import type { EventBus } from '../domain/events.ts';
import type { OrgService } from '../domain/orgs/org.service.ts';
import type { UserService } from '../domain/users/user.service.ts';
import type { GitContext } from '../git/git-context.ts';
import type { CacheRegistry } from '../lib/cache-registry.ts';

/**
 * What the areas are built from: the settings, the database, the git layer, the event bus and
 * the accounts every area asks about, and the registry of caches. Each area's parts add what it takes from other areas.
 */
export type CoreParts = {
  readonly config: Config;
  readonly database: Database;
  readonly git: GitContext;
  readonly events: EventBus;
  readonly users: UserService;
  readonly orgs: OrgService;
  readonly admins: AdminPolicy;
  /** Where the services' caches report their size and hit rate (`/metrics`). */
  readonly caches: CacheRegistry;
};
