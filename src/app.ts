import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from './config/config.ts';
import { type Database, migrate, openDatabase } from './db/database.ts';
import { AdminPolicy } from './domain/admin/admin.policy.ts';
import { OrgService } from './domain/orgs/org.service.ts';
import { SessionService } from './domain/sessions/session.service.ts';
import { TokenService } from './domain/tokens/token.service.ts';
import { UserService } from './domain/users/user.service.ts';
import { UserStore } from './domain/users/user.store.ts';

/** The domain services, built once per process and shared by every edge (HTTP, CLI, MCP). */
export type Services = {
  readonly users: UserService;
  readonly tokens: TokenService;
  readonly sessions: SessionService;
  readonly orgs: OrgService;
  readonly admins: AdminPolicy;
};

export type App = {
  readonly config: Config;
  readonly database: Database;
  readonly services: Services;
  /** Absolute data directory. */
  readonly dataDir: string;
  /** Releases everything the app holds (database pool, git processes, timers). */
  close(): Promise<void>;
};

/**
 * The composition root: configuration → database (migrated) → domain services. Every entry
 * point, tests included, builds Kiln through here.
 */
export async function createApp(config: Config): Promise<App> {
  const dataDir = resolve(config.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir });
  try {
    await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const { db } = database;
  const userStore = new UserStore(db);
  const users = new UserService(userStore);
  const services: Services = {
    users,
    tokens: new TokenService(db, users),
    sessions: new SessionService(db, users, config.auth.sessionLifetimeMs),
    orgs: new OrgService(db, userStore),
    admins: new AdminPolicy(config.adminHandles),
  };
  let closed = false;
  return {
    config,
    database,
    services,
    dataDir,
    async close() {
      if (closed) return;
      closed = true;
      await database.close();
    },
  };
}
