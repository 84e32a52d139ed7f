import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildCaches } from './caches.ts';
import type { Config } from './config/config.ts';
import { type Database, migrate, openDatabase } from './db/database.ts';
import { HealthService } from './domain/admin/health.service.ts';
import { SiteAdminService } from './domain/admin/site-admin.service.ts';
import { EventBus } from './domain/events.ts';
import type { DomainServices } from './domain/services.ts';
import { CatFilePool } from './git/cat-file-pool.ts';
import type { GitContext } from './git/git-context.ts';
import { RefUpdatePool } from './git/ref-update-pool.ts';
import { RepoPaths } from './git/repo-paths.ts';
import { sweepTempDirs } from './git/repository.ts';
import type { CacheRegistry } from './lib/cache-registry.ts';
import { probeReadWrite } from './lib/directory-probe.ts';
import { buildAccounts } from './wiring/accounts.ts';
import { startBackgroundWork } from './wiring/background.ts';
import { buildCi, subscribeCi } from './wiring/ci.ts';
import { buildFederation, subscribeFederation } from './wiring/federation.ts';
import { buildHousekeeping, subscribeHousekeeping } from './wiring/housekeeping.ts';
import { buildLfs, subscribeLfs } from './wiring/lfs.ts';
import { subscribeNotifications } from './wiring/notifications.ts';
import { buildPulls, subscribePulls } from './wiring/pulls.ts';
import { buildRepos } from './wiring/repos.ts';
import { buildRunners } from './wiring/runners.ts';
import { buildWebhooks, subscribeWebhooks } from './wiring/webhooks.ts';
import { workflowParserPool } from './wiring/workflow-parser-pool.ts';

export { lfsService } from './wiring/lfs.ts';
export type { GitContext };

/** The domain services; see `domain/services.ts`. */
export type Services = DomainServices;

export type App = {
  readonly config: Config;
  readonly database: Database;
  readonly services: Services;
  readonly git: GitContext;
  /**
   * The bus of domain events (`domain/events.ts`). Kiln's own reactions are subscribed by
   * `src/wiring/` before anything is published; one subscribed later hears an event after them.
   */
  readonly events: EventBus;
  /** The process's caches, each declared with its freshness and bound (src/caches.ts). */
  readonly caches: CacheRegistry;
  /** Absolute data directory. */
  readonly dataDir: string;
  /**
   * Starts the work a serving process does on its own: draining the webhook queue, failing
   * zombie CI tasks, expiring logs, starting scheduled runs. Called when a server is ready;
   * one-shot commands (`kiln user create`, `kiln dump`…) never call it. Idempotent.
   */
  startBackgroundWork(): void;
  /** Releases everything the app holds (database pool, git processes, timers). */
  close(): Promise<void>;
};

/**
 * The composition root: configuration → database (migrated) → git layer → domain services,
 * each area built by its module of `src/wiring/`, which also subscribes the area's reactions to
 * the event bus. Every entry point, tests included, builds Kiln through here.
 */
export async function createApp(config: Config): Promise<App> {
  const dataDir = resolve(config.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    listenUrl: config.databaseListenUrl,
    dataDir,
  });
  try {
    await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const { db } = database;
  const caches = buildCaches(database);
  const git: GitContext = {
    paths: new RepoPaths(join(dataDir, 'repositories'), caches.git),
    catFiles: new CatFilePool({ keptAnswers: caches.git.keptAnswers }),
    refUpdates: new RefUpdatePool(),
  };
  await sweepTempDirs(git.paths);
  // A reaction that fails is logged here unless its publisher takes the failure (pushes do).
  const events = new EventBus((error, name) => {
    process.stderr.write(`kiln: a reaction to ${name} failed: ${String(error)}\n`);
  });
  const accounts = buildAccounts(config, db, events);
  const { users, orgs, admins } = accounts;
  const core = { config, database, git, events, users, orgs, admins, caches: caches.registry };
  const housekeeping = buildHousekeeping(config, db, git.paths);
  const lfsParts = buildLfs(config, database, dataDir);
  // With LFS off, pages show pointers as the blobs they are.
  const pointers = config.lfs.enabled ? lfsParts.lfs : undefined;
  const repoParts = buildRepos({
    ...core,
    leases: housekeeping.store,
    lfs: pointers,
    userStore: accounts.userStore,
  });
  const { repos } = repoParts;
  const pullParts = buildPulls({
    db,
    git,
    events,
    repos,
    users,
    protectedBranches: repoParts.protectedBranches,
    caches: caches.registry,
  });
  // Workflow files are parsed on a few threads of this app's own, started with the first push
  // and stopped when idle or when the app closes.
  const workflowParser = workflowParserPool();
  const ci = buildCi({
    ...core,
    dataDir,
    repos,
    repoStore: repoParts.repoStore,
    branchPushes: pullParts.branchPushes,
    workflowParser,
  });
  const runners = buildRunners(database, admins, orgs, caches.registry);
  const federation = await buildFederation({
    ...core,
    repos,
    remotePulls: pullParts.remotePulls,
    protectedBranches: repoParts.protectedBranches,
    pushHandling: repoParts.pushHandling,
  });
  const { webhooks, webhookWorker, webhookNotifier } = buildWebhooks({
    ...core,
    repos,
    pulls: pullParts.pulls,
  });
  // Who hears an event, in this order (docs/architecture.md, "Domain events"): pull requests,
  // CI, federation, housekeeping, then webhooks, which see what the others did.
  subscribePulls(events, {
    suggestions: pullParts.pullSuggestions,
    pulls: pullParts.pulls,
    timeline: pullParts.pullTimeline,
  });
  subscribeLfs(events, lfsParts.lfs);
  subscribeCi(events, ci.ciTriggers);
  if (federation) subscribeFederation(events, federation);
  subscribeHousekeeping(events, housekeeping.service);
  subscribeWebhooks(events, webhookWorker);
  subscribeNotifications(events, webhookNotifier);
  const { userStore, ...accountServices } = accounts;
  const { repoStore, ...repoServices } = repoParts;
  const { branchPushes, ...pullServices } = pullParts;
  const services: Services = {
    ...accountServices,
    ...repoServices,
    ...pullServices,
    ...ci,
    ...runners,
    ...lfsParts,
    health: new HealthService(database, () => probeReadWrite(dataDir)),
    housekeeping: housekeeping.service,
    webhooks,
    siteAdmin: new SiteAdminService({
      admins,
      userStore,
      users,
      repos,
      runnerAdmin: runners.runnerAdmin,
      paths: git.paths,
    }),
    federation,
  };
  let background: { stop(): Promise<void> } | undefined;
  let closed = false;
  return {
    config,
    database,
    services,
    git,
    events,
    caches: caches.registry,
    dataDir,
    startBackgroundWork() {
      if (background || closed) return;
      background = startBackgroundWork({ config, services, webhookWorker });
    },
    async close() {
      if (closed) return;
      closed = true;
      // In this order: a push's or a merge's reactions may still be running (they run after
      // the answer), and the last of them hands work to the webhook notifier; only once all
      // have settled may the database and the git pools close under them.
      await Promise.all([services.pushHandling.settle(), services.pullMerges.settle()]);
      await webhookNotifier.settle();
      await Promise.all([
        background?.stop(),
        housekeeping.service.close(),
        webhookWorker.stop(),
        workflowParser.close(),
      ]);
      await federation?.stop();
      await services.ciLogs.closeAll();
      await Promise.all([git.catFiles.closeAll(), git.refUpdates.closeAll()]);
      await database.close();
    },
  };
}
