import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from './config/config.ts';
import { TableChangeClock } from './db/change-clock.ts';
import { type Database, migrate, openDatabase } from './db/database.ts';
import { AdminPolicy } from './domain/admin/admin.policy.ts';
import { HealthService } from './domain/admin/health.service.ts';
import { SiteAdminService } from './domain/admin/site-admin.service.ts';
import { BranchService } from './domain/branches/branch.service.ts';
import { CommitAuthorStore } from './domain/branches/commit-author.store.ts';
import { CommitStatusService } from './domain/branches/commit-status.service.ts';
import { ArtifactStore } from './domain/ci/artifacts/artifact.store.ts';
import { ArtifactQueryService } from './domain/ci/artifacts/artifact-query.service.ts';
import { PipelineArtifactService } from './domain/ci/artifacts/pipeline-artifact.service.ts';
import { V4ArtifactService } from './domain/ci/artifacts/v4-artifact.service.ts';
import { CiCacheService } from './domain/ci/cache/cache.service.ts';
import { CacheStore } from './domain/ci/cache/cache.store.ts';
import { CiOrgSettingStore } from './domain/ci/ci-org-setting.store.ts';
import { CiOrgSettingsService } from './domain/ci/ci-org-settings.service.ts';
import { subscribeCiToPulls } from './domain/ci/ci-pulls.ts';
import { subscribeCiToPushes } from './domain/ci/ci-pushes.ts';
import { CiSecretService } from './domain/ci/ci-secret.service.ts';
import { CiSettingStore } from './domain/ci/ci-setting.store.ts';
import { CiStores } from './domain/ci/ci-stores.ts';
import { CiTaskService } from './domain/ci/ci-task.service.ts';
import { CiVariableService } from './domain/ci/ci-variable.service.ts';
import { CommitCheckStore } from './domain/ci/commit-check.store.ts';
import { ForkPullGate } from './domain/ci/fork-approval.ts';
import { RunApprovalService } from './domain/ci/run-approval.service.ts';
import { RunCancelService } from './domain/ci/run-cancel.service.ts';
import { RunLifecycle } from './domain/ci/run-lifecycle.ts';
import { RunQueryService } from './domain/ci/run-query.service.ts';
import { RunRerunService } from './domain/ci/run-rerun.service.ts';
import { RunTriggerService } from './domain/ci/run-trigger.service.ts';
import { RuntimeTokens } from './domain/ci/runtime-token.ts';
import { ScheduleService } from './domain/ci/schedule.service.ts';
import { ScheduleStore } from './domain/ci/schedule.store.ts';
import { TaskDispatchService } from './domain/ci/task-dispatch.service.ts';
import { TaskReportService } from './domain/ci/task-report.service.ts';
import { TaskTokenStore } from './domain/ci/task-token.store.ts';
import { CiTaskTokens } from './domain/ci/task-token.ts';
import { TasksVersions } from './domain/ci/tasks-version.ts';
import { startZombieSweep } from './domain/ci/zombie-sweep.ts';
import { ArchiveService } from './domain/code/archive.service.ts';
import { CodeService } from './domain/code/code.service.ts';
import { PushHistory } from './domain/code/push-history.ts';
import { subscribeFederationToPushes } from './domain/federation/federation-pushes.ts';
import { openFederation } from './domain/federation/open-federation.ts';
import { SshKeyService } from './domain/keys/ssh-key.service.ts';
import { SshKeyStore } from './domain/keys/ssh-key.store.ts';
import { OrgService } from './domain/orgs/org.service.ts';
import { OrgStore } from './domain/orgs/org.store.ts';
import { BranchPushStore } from './domain/pulls/branch-push.store.ts';
import { CompareService } from './domain/pulls/compare.service.ts';
import { MergeGateService } from './domain/pulls/merge-gate.service.ts';
import { MergeabilityService } from './domain/pulls/mergeability.service.ts';
import { PullService } from './domain/pulls/pull.service.ts';
import { PullStore } from './domain/pulls/pull.store.ts';
import { PullEvents } from './domain/pulls/pull-events.ts';
import { PullMergeService } from './domain/pulls/pull-merge.service.ts';
import { subscribePullsToPushes } from './domain/pulls/pull-pushes.ts';
import { PullSuggestionService } from './domain/pulls/pull-suggestions.service.ts';
import { ReviewCommentService } from './domain/pulls/review-comment.service.ts';
import { ReviewCommentStore } from './domain/pulls/review-comment.store.ts';
import { ReleaseService } from './domain/releases/release.service.ts';
import { ReleaseStore } from './domain/releases/release.store.ts';
import { TagService } from './domain/releases/tag.service.ts';
import { CollaboratorService } from './domain/repos/collaborator.service.ts';
import { CollaboratorStore } from './domain/repos/collaborator.store.ts';
import { HousekeepingService } from './domain/repos/housekeeping.service.ts';
import { HousekeepingStore } from './domain/repos/housekeeping.store.ts';
import { subscribeHousekeepingToPushes } from './domain/repos/housekeeping-pushes.ts';
import { ProtectedBranchService } from './domain/repos/protected-branch.service.ts';
import { ProtectedBranchStore } from './domain/repos/protected-branch.store.ts';
import { PushService } from './domain/repos/push.service.ts';
import { PushEvents } from './domain/repos/push-events.ts';
import { RepoService } from './domain/repos/repo.service.ts';
import { RepoStore } from './domain/repos/repo.store.ts';
import { RepoAccessService } from './domain/repos/repo-access.service.ts';
import { RepoLifecycleService } from './domain/repos/repo-lifecycle.service.ts';
import { RepoListingService } from './domain/repos/repo-listing.service.ts';
import { RegistrationTokenStore } from './domain/runners/registration-token.store.ts';
import { RunnerStore } from './domain/runners/runner.store.ts';
import { RunnerAdminService } from './domain/runners/runner-admin.service.ts';
import { RunnerRegistryService } from './domain/runners/runner-registry.service.ts';
import { ScopeLookupStore } from './domain/runners/scope-lookup.store.ts';
import type { DomainServices } from './domain/services.ts';
import { LoginThrottleStore } from './domain/sessions/login-throttle.store.ts';
import { LoginThrottle } from './domain/sessions/login-throttle.ts';
import { SessionService } from './domain/sessions/session.service.ts';
import { SessionStore } from './domain/sessions/session.store.ts';
import { TokenService } from './domain/tokens/token.service.ts';
import { TokenStore } from './domain/tokens/token.store.ts';
import { UserService } from './domain/users/user.service.ts';
import { UserStore } from './domain/users/user.store.ts';
import { isUser } from './domain/users/user.types.ts';
import { DeliveryStore } from './domain/webhooks/delivery.store.ts';
import { DeliveryWorker } from './domain/webhooks/delivery-worker.ts';
import { WebhookService } from './domain/webhooks/webhook.service.ts';
import { WebhookStore } from './domain/webhooks/webhook.store.ts';
import { CatFilePool } from './git/cat-file-pool.ts';
import type { GitContext } from './git/git-context.ts';
import { RefUpdatePool } from './git/ref-update-pool.ts';
import { RepoPaths } from './git/repo-paths.ts';
import { sweepTempDirs } from './git/repository.ts';
import { probeReadWrite } from './lib/directory-probe.ts';
import { WebhookNotifier } from './notify/webhook-notifier.ts';
import { WebhookRecords } from './notify/webhook-records.ts';
import { BlobDirectory } from './storage/artifact-blob-files.ts';
import { CacheBlobFiles } from './storage/cache-blob-files.ts';
import { TaskLogFiles } from './storage/task-log-files.ts';
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
 * The composition root: configuration → database (migrated) → domain services. Every entry
 * point, tests included, builds Kiln through here.
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
  const git: GitContext = {
    paths: new RepoPaths(join(dataDir, 'repositories')),
    catFiles: new CatFilePool(),
    refUpdates: new RefUpdatePool(),
  };
  await sweepTempDirs(git.paths);
  const userStore = new UserStore(db);
  const users = new UserService(userStore, config.adminHandles, config.ci.actionOwners);
  const admins = new AdminPolicy(config.adminHandles, config.ci.actionOwners);
  const orgs = new OrgService(new OrgStore(db), userStore, admins);
  const repoStore = new RepoStore(db);
  const collaboratorStore = new CollaboratorStore(db);
  const housekeepingStore = new HousekeepingStore(db);
  const repoAccess = new RepoAccessService({
    store: repoStore,
    collaborators: collaboratorStore,
    orgs,
    admins,
    changes: database.changes,
  });
  const repos = new RepoService({
    access: repoAccess,
    listing: new RepoListingService({
      store: repoStore,
      access: repoAccess,
      users,
      changes: database.changes,
    }),
    lifecycle: new RepoLifecycleService({
      store: repoStore,
      access: repoAccess,
      orgs,
      admins,
      paths: git.paths,
      catFiles: git.catFiles,
      refUpdates: git.refUpdates,
      leases: housekeepingStore,
    }),
  });
  const protectedBranches = new ProtectedBranchService(repos, new ProtectedBranchStore(db));
  const pushes = new PushEvents();
  const pullStore = new PullStore(db);
  const pullEvents = new PullEvents();
  const pulls = new PullService({
    store: pullStore,
    repos,
    users,
    catFiles: git.catFiles,
    events: pullEvents,
  });
  pullEvents.onError((error) => {
    process.stderr.write(`kiln: pull request listener failed: ${String(error)}\n`);
  });
  const releaseStore = new ReleaseStore(db);
  const tags = new TagService(repos, releaseStore, git.catFiles);
  const ciStores = new CiStores(db);
  const tasksVersions = new TasksVersions(ciStores.versions);
  const ciRuns = new RunLifecycle(ciStores, tasksVersions);
  const ciTasks = new CiTaskService(ciStores, {
    taskTimeoutMs: config.ci.taskTimeoutMs,
    heartbeatTimeoutMs: config.ci.heartbeatTimeoutMs,
    abandonedTimeoutMs: config.ci.abandonedTimeoutMs,
    onJobsStopped: async (stores, runIds) => {
      for (const runId of runIds) await ciRuns.settle(stores, runId);
    },
  });
  const ciSettings = new CiSettingStore(db);
  const ciOrgSettings = new CiOrgSettingsService({
    store: new CiOrgSettingStore(db),
    orgs,
    admins,
    secretKey: config.secretKey,
  });
  const ciSecrets = new CiSecretService(ciSettings, config.secretKey, ciOrgSettings);
  const ciVariables = new CiVariableService(ciSettings, ciOrgSettings);
  const ciLogs = new TaskLogFiles(join(dataDir, 'ci-logs'));
  const ciSchedules = new ScheduleService(new ScheduleStore(db));
  const runtimeTokens = new RuntimeTokens(config.secretKey);
  const ciTaskTokens = new CiTaskTokens(new TaskTokenStore(db), {
    runtime: runtimeTokens,
    // The most the run's actor may do on the repository now: the token is held below it.
    actorBound: async (actorId, repoId) => {
      const [actor, repo] = await Promise.all([users.findById(actorId), repos.findById(repoId)]);
      if (actor !== undefined && !isUser(actor)) return undefined;
      return actor === undefined || repo === undefined ? 'none' : repos.accessOf(actor, repo);
    },
  });
  // Artifacts' bytes sit beside the repositories, in the data directory replicas share.
  const artifactStore = new ArtifactStore(db);
  const artifactBytes = new BlobDirectory(join(dataDir, 'artifacts'));
  const ciRunQueries = new RunQueryService({
    runs: ciStores.runs,
    jobs: ciStores.jobs,
    repos,
    logs: ciLogs,
    annotations: ciStores.annotations,
  });
  const branchPushes = new BranchPushStore(db);
  const ciTriggers = new RunTriggerService({
    runs: ciStores.runs,
    repos,
    catFiles: git.catFiles,
    versions: tasksVersions,
    lifecycle: ciRuns,
    forkGate: new ForkPullGate({
      userById: async (id) => {
        const account = await users.findById(id);
        return account && isUser(account) ? account : undefined;
      },
      accessOf: (user, repo) => repos.accessOf(user, repo),
      isApproved: (pullId, actorId) => ciStores.approvals.isApproved(pullId, actorId),
      lastPusherOf: async (repo, branch) => (await branchPushes.find(repo.id, branch))?.pusherId,
    }),
    schedules: ciSchedules,
    variables: ciVariables,
    findRepoByName: (owner, name) => repoStore.findByName(owner, name),
  });
  ciSchedules.startRunsWith((repoId, file) => ciTriggers.onSchedule(repoId, file));
  // What reacts to a pull request change, in the order it hears of it: CI, then webhooks
  // (subscribed in startWebhooks).
  subscribeCiToPulls(pullEvents, ciTriggers);
  const releases = new ReleaseService(repos, releaseStore, tags);
  const reportFederation = (error: unknown) => {
    process.stderr.write(`kiln: federation work failed: ${String(error)}\n`);
  };
  const federation = await openFederation({
    config,
    db,
    dialect: database.dialect,
    changes: database.changes,
    users,
    repos,
    orgs,
    releases,
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
  // What reacts to a push, each subscribing from its own folder; this is the order they hear
  // of it (PushEvents hands a push to one listener after the other).
  const pullSuggestions = new PullSuggestionService({
    repos,
    pulls: pullStore,
    pushes: branchPushes,
  });
  // Who pushed a branch is known before its pulls move: a run of a pull's head asks for its
  // pusher's approval (fork-approval.ts), and must not read the pusher of the head before.
  pushes.subscribe((push) => pullSuggestions.record(push));
  subscribePullsToPushes(pushes, pulls);
  subscribeCiToPushes(pushes, ciTriggers);
  if (federation) subscribeFederationToPushes(pushes, federation);
  subscribeHousekeepingToPushes(pushes, housekeeping);
  const runnerStore = new RunnerStore(db);
  const registrationTokens = new RegistrationTokenStore(db);
  const reviewComments = new ReviewCommentService({
    store: new ReviewCommentStore(db),
    pullStore,
    pulls,
    repos,
    catFiles: git.catFiles,
  });
  const { webhooks, webhookWorker, webhookNotifier } = startWebhooks({
    config,
    db,
    dialect: database.dialect,
    changes: database.changes,
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
  const runnerAdmin = new RunnerAdminService({
    tokens: registrationTokens,
    runners: runnerStore,
    lookup: new ScopeLookupStore(db),
    admins,
    orgs,
  });
  const pushHandling = new PushService({ repos, events: pushes });
  const mergeGates = new MergeGateService(protectedBranches, new CommitCheckStore(db));
  const pullMerges = new PullMergeService(pulls, pullStore, repos, git, {
    onError: (error) => process.stderr.write(`kiln: announcing a merge failed: ${String(error)}\n`),
    gate: mergeGates,
  });
  const services: Services = {
    users,
    tokens: new TokenService(new TokenStore(db), users),
    sshKeys: new SshKeyService({ store: new SshKeyStore(db), users, repos }),
    sessions: new SessionService(new SessionStore(db), users, config.auth.sessionLifetimeMs),
    loginThrottle: new LoginThrottle(new LoginThrottleStore(db), config.auth.login),
    orgs,
    admins,
    health: new HealthService(database, () => probeReadWrite(dataDir)),
    repos,
    collaborators: new CollaboratorService(repos, collaboratorStore, users),
    protectedBranches,
    pushes,
    pushHandling,
    housekeeping,
    pulls,
    pullEvents,
    pullMerges,
    mergeGates,
    compares: new CompareService({ repos, pulls, store: pullStore, catFiles: git.catFiles }),
    pullSuggestions,
    mergeability: new MergeabilityService({
      repos,
      pulls,
      onError: (error) =>
        process.stderr.write(`kiln: mergeability check failed: ${String(error)}\n`),
    }),
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
    runners: new RunnerRegistryService(runnerStore, registrationTokens, database.rowChanges),
    runnerAdmin,
    siteAdmin: new SiteAdminService({
      admins,
      userStore,
      users,
      repos,
      runnerAdmin,
      paths: git.paths,
    }),
    ciTasks,
    ciSecrets,
    ciVariables,
    ciOrgSettings,
    ciRuns,
    ciTriggers,
    ciDispatch: new TaskDispatchService({
      stores: ciStores,
      tasks: ciTasks,
      versions: tasksVersions,
      secrets: ciSecrets,
      variables: ciVariables,
      actionsUrl: config.ci.actionsUrl?.href.replace(/\/+$/, ''),
      logRetentionDays: Math.round(config.ci.logRetentionMs / 86_400_000),
      runtimeTokens: {
        mint: (claims, expiresAt) => runtimeTokens.mint(claims, expiresAt),
        lifetimeMs: config.ci.taskTimeoutMs,
      },
    }),
    ciReports: new TaskReportService({
      stores: ciStores,
      tasks: ciTasks,
      lifecycle: ciRuns,
      logs: ciLogs,
      secrets: ciSecrets,
      logRetentionMs: config.ci.logRetentionMs,
      logLimits: config.ci.logLimits,
    }),
    ciLogs,
    ciTaskTokens,
    ciCaches: new CiCacheService({
      store: new CacheStore(db),
      blobs: new CacheBlobFiles(join(dataDir, 'ci-caches')),
      repos,
      sizeLimit: config.ci.cacheSizeBytes,
    }),
    ciArtifacts: new PipelineArtifactService({
      store: artifactStore,
      bytes: artifactBytes,
      authenticate: (token) => ciTaskTokens.authenticateRuntime(token),
      retentionMs: config.ci.artifactRetentionMs,
      maxBytesPerRepo: config.ci.artifactMaxBytesPerRepo,
    }),
    ciArtifactsV4: new V4ArtifactService({
      store: artifactStore,
      bytes: artifactBytes,
      authenticate: (token) => ciTaskTokens.authenticateRuntime(token),
      signer: runtimeTokens,
      retentionMs: config.ci.artifactRetentionMs,
      maxBytesPerRepo: config.ci.artifactMaxBytesPerRepo,
    }),
    ciArtifactQueries: new ArtifactQueryService({
      store: artifactStore,
      bytes: artifactBytes,
      repos,
      runs: ciRunQueries,
      runRows: ciStores.runs,
    }),
    ciSchedules,
    ciRunQueries,
    ciRunCancels: new RunCancelService({ repos, queries: ciRunQueries, lifecycle: ciRuns }),
    ciRunApprovals: new RunApprovalService({
      repos,
      queries: ciRunQueries,
      stores: ciStores,
      lifecycle: ciRuns,
    }),
    ciRunReruns: new RunRerunService({
      repos,
      queries: ciRunQueries,
      stores: ciStores,
      lifecycle: ciRuns,
      logs: ciLogs,
    }),
    code: new CodeService(repos, git.catFiles),
    archives: new ArchiveService({
      repos,
      catFiles: git.catFiles,
      limits: {
        maxActive: config.archive.maxConcurrent,
        maxWaiting: config.archive.maxQueued,
        maxWaitMs: config.archive.queueTimeoutMs,
      },
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
    dataDir,
    startBackgroundWork() {
      if (background || closed) return;
      background = startBackgroundWork({ config, services, ciTasks, ciSchedules, webhookWorker });
    },
    async close() {
      if (closed) return;
      closed = true;
      // In this order: a push's or a merge's listeners may still be running (they run after
      // the answer), and the last of them hands work to the webhook notifier; only once all
      // have settled may the database and the git pools close under them.
      await Promise.all([pushHandling.settle(), pullMerges.settle()]);
      await webhookNotifier.settle();
      await Promise.all([background?.stop(), housekeeping.close(), webhookWorker.stop()]);
      await federation?.stop();
      await ciLogs.closeAll();
      await Promise.all([git.catFiles.closeAll(), git.refUpdates.closeAll()]);
      await database.close();
    },
  };
}

type BackgroundParts = {
  readonly config: Config;
  readonly services: Services;
  readonly ciTasks: CiTaskService;
  readonly ciSchedules: ScheduleService;
  readonly webhookWorker: DeliveryWorker;
};

/** The timers and workers of a serving process (see `App.startBackgroundWork`). */
function startBackgroundWork(parts: BackgroundParts): { stop(): Promise<void> } {
  const { config, services, ciSchedules, webhookWorker } = parts;
  webhookWorker.start();
  const zombieSweep = startZombieSweep(
    parts.ciTasks,
    config.ci.zombieReclaimIntervalMs,
    (error) => {
      process.stderr.write(`kiln: CI zombie sweep failed: ${String(error)}\n`);
    },
    async () => {
      await services.ciReports.expireLogs();
      await services.ciCaches.sweep();
      await services.ciArtifacts.expire();
    },
  );
  // Every 15 s, so each minute is claimed early in it by whichever replica ticks first.
  const scheduleTimer = setInterval(() => {
    ciSchedules.tick().catch((error: unknown) => {
      process.stderr.write(`kiln: CI schedule failed: ${String(error)}\n`);
    });
  }, 15_000);
  scheduleTimer.unref();
  return {
    async stop() {
      clearInterval(scheduleTimer);
      await zombieSweep.stop();
    },
  };
}

type WebhookParts = {
  readonly config: Config;
  readonly db: Database['db'];
  readonly dialect: Database['dialect'];
  readonly changes: Database['changes'];
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
  // Only this store writes `webhooks`, so its own clock lets readers keep what they read.
  const hookStore = new WebhookStore(db, new TableChangeClock(parts.changes));
  const deliveryStore = new DeliveryStore(db, parts.dialect);
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
