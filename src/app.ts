import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from './config/config.ts';
import { type Database, migrate, openDatabase } from './db/database.ts';
import { AdminPolicy } from './domain/admin/admin.policy.ts';
import { BranchService } from './domain/branches/branch.service.ts';
import { CommitAuthorStore } from './domain/branches/commit-author.store.ts';
import { CommitStatusService } from './domain/branches/commit-status.service.ts';
import { CiSecretService } from './domain/ci/ci-secret.service.ts';
import { CiTaskService } from './domain/ci/ci-task.service.ts';
import { CiVariableService } from './domain/ci/ci-variable.service.ts';
import { TaskLogStore } from './domain/ci/logs/task-log-store.ts';
import { RunCancelService } from './domain/ci/run-cancel.service.ts';
import { RunLifecycle } from './domain/ci/run-lifecycle.ts';
import { RunQueryService } from './domain/ci/run-query.service.ts';
import { RunTriggerService } from './domain/ci/run-trigger.service.ts';
import { ScheduleService } from './domain/ci/schedule.service.ts';
import { TaskDispatchService } from './domain/ci/task-dispatch.service.ts';
import { TaskReportService } from './domain/ci/task-report.service.ts';
import { CiTaskTokens } from './domain/ci/task-token.ts';
import { TasksVersions } from './domain/ci/tasks-version.ts';
import { startZombieSweep } from './domain/ci/zombie-sweep.ts';
import { CodeService } from './domain/code/code.service.ts';
import { PushHistory } from './domain/code/push-history.ts';
import { Federation } from './domain/federation/federation.ts';
import { OrgService } from './domain/orgs/org.service.ts';
import { PullService } from './domain/pulls/pull.service.ts';
import { PullStore } from './domain/pulls/pull.store.ts';
import { PullEvents } from './domain/pulls/pull-events.ts';
import { PullMergeService } from './domain/pulls/pull-merge.service.ts';
import { ReviewCommentService } from './domain/pulls/review-comment.service.ts';
import { ReleaseService } from './domain/releases/release.service.ts';
import { ReleaseStore } from './domain/releases/release.store.ts';
import { TagService } from './domain/releases/tag.service.ts';
import { CollaboratorService } from './domain/repos/collaborator.service.ts';
import { HousekeepingService } from './domain/repos/housekeeping.service.ts';
import { HousekeepingStore } from './domain/repos/housekeeping.store.ts';
import { ProtectedBranchService } from './domain/repos/protected-branch.service.ts';
import { PushEvents } from './domain/repos/push-events.ts';
import { RepoService } from './domain/repos/repo.service.ts';
import { RepoStore } from './domain/repos/repo.store.ts';
import { RunnerAdminService } from './domain/runners/runner-admin.service.ts';
import { RunnerRegistryService } from './domain/runners/runner-registry.service.ts';
import type { DomainServices } from './domain/services.ts';
import { LoginThrottle } from './domain/sessions/login-throttle.ts';
import { SessionService } from './domain/sessions/session.service.ts';
import { TokenService } from './domain/tokens/token.service.ts';
import { UserService } from './domain/users/user.service.ts';
import { UserStore } from './domain/users/user.store.ts';
import { DeliveryStore } from './domain/webhooks/delivery.store.ts';
import { DeliveryWorker } from './domain/webhooks/delivery-worker.ts';
import { WebhookService } from './domain/webhooks/webhook.service.ts';
import { WebhookStore } from './domain/webhooks/webhook.store.ts';
import { CatFilePool } from './git/cat-file-pool.ts';
import type { GitContext } from './git/git-context.ts';
import { RefUpdatePool } from './git/ref-update-pool.ts';
import { RepoPaths } from './git/repo-paths.ts';
import { sweepTempDirs } from './git/repository.ts';
import { WebhookNotifier } from './notify/webhook-notifier.ts';
import { WebhookRecords } from './notify/webhook-records.ts';
import { KILN_VERSION } from './version.ts';

export type { GitContext };

/** The domain services; see `domain/services.ts`. */
export type Services = DomainServices;

export type App = {
  readonly config: Config;
  readonly database: Database;
  readonly services: Services;
  readonly git: GitContext;
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
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir });
  try {
    await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const { db } = database;
  const git: GitContext = {
    paths: new RepoPaths(join(dataDir, 'repositories')),
    catFiles: new CatFilePool(),
    refUpdates: new RefUpdatePool(),
  };
  await sweepTempDirs(git.paths);
  const userStore = new UserStore(db);
  const users = new UserService(userStore, config.adminHandles);
  const orgs = new OrgService(db, userStore);
  const admins = new AdminPolicy(config.adminHandles);
  const repoStore = new RepoStore(db);
  const housekeepingStore = new HousekeepingStore(db);
  const repos = new RepoService({
    store: repoStore,
    users,
    orgs,
    admins,
    paths: git.paths,
    catFiles: git.catFiles,
    refUpdates: git.refUpdates,
    changes: database.changes,
    leases: housekeepingStore,
  });
  const protectedBranches = new ProtectedBranchService(repos, repoStore);
  const pushes = new PushEvents();
  const pullStore = new PullStore(db);
  const pullEvents = new PullEvents();
  const pulls = new PullService({
    store: pullStore,
    repos,
    users,
    catFiles: git.catFiles,
    events: pullEvents,
    onEventError: (error) => {
      process.stderr.write(`kiln: pull request listener failed: ${String(error)}\n`);
    },
  });
  const releaseStore = new ReleaseStore(db);
  const tags = new TagService(repos, releaseStore, git.catFiles);
  pushes.subscribe(async ({ repo, changes, pusher }) => {
    for (const change of changes) {
      if (change.newSha && change.ref.startsWith('refs/heads/')) {
        const branch = change.ref.slice('refs/heads/'.length);
        await pulls.onBranchPushed(repo, branch, change.newSha, pusher);
      }
    }
  });
  const tasksVersions = new TasksVersions(db);
  const ciRuns = new RunLifecycle(db, tasksVersions);
  const ciTasks = new CiTaskService(db, {
    taskTimeoutMs: config.ci.taskTimeoutMs,
    heartbeatTimeoutMs: config.ci.heartbeatTimeoutMs,
    abandonedTimeoutMs: config.ci.abandonedTimeoutMs,
    onJobsStopped: async (trx, runIds) => {
      for (const runId of runIds) await ciRuns.settle(trx, runId);
    },
  });
  const ciSecrets = new CiSecretService(db, config.secretKey);
  const ciVariables = new CiVariableService(db);
  const ciLogs = new TaskLogStore(join(dataDir, 'ci-logs'));
  const ciSchedules = new ScheduleService(db);
  const ciRunQueries = new RunQueryService({ db, repos, logs: ciLogs });
  const ciTriggers = new RunTriggerService({
    db,
    repos,
    catFiles: git.catFiles,
    versions: tasksVersions,
    lifecycle: ciRuns,
    schedules: ciSchedules,
  });
  ciSchedules.startRunsWith((repoId, file) => ciTriggers.onSchedule(repoId, file));
  pushes.subscribe(async (push) => {
    await ciTriggers.onPush(push);
  });
  pullEvents.subscribe(async (event) => {
    await ciTriggers.onPull(event);
  });
  const releases = new ReleaseService(repos, releaseStore, tags);
  const reportFederation = (error: unknown) => {
    process.stderr.write(`kiln: federation work failed: ${String(error)}\n`);
  };
  const federation = Federation.fromConfig({
    config,
    db,
    changes: database.changes,
    users,
    repos,
    releases,
    pushes,
    catFiles: git.catFiles,
    userAgent: `Kiln/${KILN_VERSION} (+${config.baseUrl?.href ?? ''})`,
    report: reportFederation,
  });
  repos.created.onError(reportFederation);
  releases.published.onError(reportFederation);
  const housekeeping = new HousekeepingService({
    store: housekeepingStore,
    paths: git.paths,
    settings: config.housekeeping,
    onError: (error) => process.stderr.write(`kiln: housekeeping failed: ${String(error)}\n`),
  });
  pushes.subscribe(async ({ repo }) => housekeeping.afterPush(repo));
  const reviewComments = new ReviewCommentService(db, pulls, repos, git.catFiles);
  const { webhooks, webhookWorker, webhookNotifier } = startWebhooks({
    config,
    db,
    git,
    users,
    orgs,
    admins,
    repos,
    pulls,
    pushes,
    pullEvents,
    reviewComments,
    releases,
  });
  const services: Services = {
    users,
    tokens: new TokenService(db, users),
    sessions: new SessionService(db, users, config.auth.sessionLifetimeMs),
    loginThrottle: new LoginThrottle(db, config.auth.login),
    orgs,
    admins,
    repos,
    collaborators: new CollaboratorService(repos, repoStore, users),
    protectedBranches,
    pushes,
    housekeeping,
    pulls,
    pullMerges: new PullMergeService(pulls, pullStore, repos, git),
    reviewComments,
    webhooks,
    branches: new BranchService({
      repos,
      protectedBranches,
      authors: new CommitAuthorStore(db),
      catFiles: git.catFiles,
    }),
    commitStatuses: new CommitStatusService(repos, git.catFiles),
    releases,
    tags,
    runners: new RunnerRegistryService(db),
    runnerAdmin: new RunnerAdminService(db, admins, orgs),
    ciTasks,
    ciSecrets,
    ciVariables,
    ciRuns,
    ciTriggers,
    ciDispatch: new TaskDispatchService({
      db,
      tasks: ciTasks,
      versions: tasksVersions,
      secrets: ciSecrets,
      variables: ciVariables,
      actionsUrl: config.ci.actionsUrl?.href.replace(/\/+$/, ''),
      logRetentionDays: Math.round(config.ci.logRetentionMs / 86_400_000),
    }),
    ciReports: new TaskReportService({
      db,
      tasks: ciTasks,
      lifecycle: ciRuns,
      logs: ciLogs,
      secrets: ciSecrets,
      logRetentionMs: config.ci.logRetentionMs,
    }),
    ciLogs,
    ciTaskTokens: new CiTaskTokens(db),
    ciSchedules,
    ciRunQueries,
    ciRunCancels: new RunCancelService({ repos, queries: ciRunQueries, lifecycle: ciRuns }),
    code: new CodeService(repos, git.catFiles),
    federation,
  };
  const zombieSweep = startZombieSweep(
    ciTasks,
    config.ci.zombieReclaimIntervalMs,
    (error) => {
      process.stderr.write(`kiln: CI zombie sweep failed: ${String(error)}\n`);
    },
    () => services.ciReports.expireLogs(),
  );
  // Every 15 s, so each minute is claimed early in it by whichever replica ticks first.
  const scheduleTimer = setInterval(() => {
    ciSchedules.tick().catch((error: unknown) => {
      process.stderr.write(`kiln: CI schedule failed: ${String(error)}\n`);
    });
  }, 15_000);
  scheduleTimer.unref();
  let closed = false;
  return {
    config,
    database,
    services,
    git,
    dataDir,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(scheduleTimer);
      await webhookNotifier.settle();
      await Promise.all([zombieSweep.stop(), housekeeping.close(), webhookWorker.stop()]);
      await federation?.stop();
      await ciLogs.closeAll();
      await Promise.all([git.catFiles.closeAll(), git.refUpdates.closeAll()]);
      await database.close();
    },
  };
}

type WebhookParts = {
  readonly config: Config;
  readonly db: Database['db'];
  readonly git: GitContext;
  readonly users: UserService;
  readonly orgs: OrgService;
  readonly admins: AdminPolicy;
  readonly repos: RepoService;
  readonly pulls: PullService;
  readonly pushes: PushEvents;
  readonly pullEvents: PullEvents;
  readonly reviewComments: ReviewCommentService;
  readonly releases: ReleaseService;
};

/**
 * Webhooks: the service, the worker draining the delivery queue, and the notifier that turns
 * domain events into Gitea payloads (built with the REST converters, hence outside `domain`).
 */
function startWebhooks(parts: WebhookParts) {
  const { config, db, git, repos } = parts;
  const report = (error: unknown) => {
    process.stderr.write(`kiln: webhook work failed: ${String(error)}\n`);
  };
  const hookStore = new WebhookStore(db);
  const deliveryStore = new DeliveryStore(db);
  let worker: DeliveryWorker | undefined;
  const webhooks = new WebhookService({
    hooks: hookStore,
    deliveries: deliveryStore,
    repos,
    orgs: parts.orgs,
    admins: parts.admins,
    secretKey: config.secretKey,
    onQueued: () => worker?.kick(),
  });
  worker = new DeliveryWorker({
    hooks: hookStore,
    deliveries: deliveryStore,
    service: webhooks,
    settings: config.webhook,
    userAgent: `Kiln/${KILN_VERSION}`,
    report,
  });
  worker.start();
  const records = new WebhookRecords({
    repos,
    users: parts.users,
    pulls: parts.pulls,
    history: new PushHistory(repos, git.catFiles),
    authors: new CommitAuthorStore(db),
    context: { baseUrl: config.baseUrl ? config.baseUrl.href.replace(/\/+$/, '') : null },
  });
  const notifier = new WebhookNotifier(webhooks, records, report);
  notifier.listen(parts);
  webhooks.useTestEvents((repo, actor) => notifier.testEvent(repo, actor));
  return { webhooks, webhookWorker: worker, webhookNotifier: notifier };
}
