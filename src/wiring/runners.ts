import type { Database } from '../db/database.ts';
import type { AdminPolicy } from '../domain/admin/admin.policy.ts';
import type { OrgService } from '../domain/orgs/org.service.ts';
import { RegistrationTokenStore } from '../domain/runners/registration-token.store.ts';
import { RunnerStore } from '../domain/runners/runner.store.ts';
import { RunnerAdminService } from '../domain/runners/runner-admin.service.ts';
import { RunnerRegistryService } from '../domain/runners/runner-registry.service.ts';
import { ScopeLookupStore } from '../domain/runners/scope-lookup.store.ts';
import type { CacheRegistry } from '../lib/cache-registry.ts';

/** Runners: the protocol's registry (register, declare, authenticate) and their administration. */
export function buildRunners(
  database: Database,
  admins: AdminPolicy,
  orgs: OrgService,
  caches: CacheRegistry,
) {
  const { db } = database;
  const store = new RunnerStore(db);
  const tokens = new RegistrationTokenStore(db);
  return {
    runners: new RunnerRegistryService(store, tokens, database.rowChanges, caches),
    runnerAdmin: new RunnerAdminService({
      tokens,
      runners: store,
      lookup: new ScopeLookupStore(db),
      admins,
      orgs,
    }),
  };
}
