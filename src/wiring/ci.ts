import { join } from 'node:path';
import { CiOrgSettingStore } from '../domain/ci/ci-org-setting.store.ts';
import { CiOrgSettingsService } from '../domain/ci/ci-org-settings.service.ts';
import { CiSecretService } from '../domain/ci/ci-secret.service.ts';
import { CiSettingStore } from '../domain/ci/ci-setting.store.ts';
import { CiStores } from '../domain/ci/ci-stores.ts';
import { CiTaskService } from '../domain/ci/ci-task.service.ts';
import { CiVariableService } from '../domain/ci/ci-variable.service.ts';
import { ForkPullGate } from '../domain/ci/fork-approval.ts';
import { pullTriggerOf } from '../domain/ci/pull-trigger.ts';
import { RunApprovalService } from '../domain/ci/run-approval.service.ts';
import { RunCancelService } from '../domain/ci/run-cancel.service.ts';
import { RunLifecycle } from '../domain/ci/run-lifecycle.ts';
import { RunQueryService } from '../domain/ci/run-query.service.ts';
import { RunRerunService } from '../domain/ci/run-rerun.service.ts';
import { RunTriggerService } from '../domain/ci/run-trigger.service.ts';
import { RuntimeTokens } from '../domain/ci/runtime-token.ts';
import { ScheduleRecords, ScheduleService } from '../domain/ci/schedule.service.ts';
import { ScheduleStore } from '../domain/ci/schedule.store.ts';
import { TaskDispatchService } from '../domain/ci/task-dispatch.service.ts';
import { TaskReportService } from '../domain/ci/task-report.service.ts';
import { TasksVersions } from '../domain/ci/tasks-version.ts';
import type { WorkflowParser } from '../domain/ci/workflow/workflow-parser.ts';
import type { EventBus } from '../domain/events.ts';
import type { BranchPushStore } from '../domain/pulls/branch-push.store.ts';
import type { RepoService } from '../domain/repos/repo.service.ts';
import type { RepoStore } from '../domain/repos/repo.store.ts';
import { isUser } from '../domain/users/user.types.ts';
import { TaskLogFiles } from '../storage/task-log-files.ts';
import { buildCiArtifacts } from './ci-artifacts.ts';
import type { CoreParts } from './parts.ts';

export type CiParts = CoreParts & {
  /** Absolute data directory: task logs, artifacts and cache archives live under it. */
  readonly dataDir: string;
  readonly repos: RepoService;
  readonly repoStore: RepoStore;
  /** Who last pushed a branch, which fork approvals ask. */
  readonly branchPushes: BranchPushStore;
  /** Where workflow files are parsed and planned: off the request thread (the app owns it). */
  readonly workflowParser: WorkflowParser;
};

/**
 * CI: workflows triggered into runs, tasks handed to runners and reported back, logs, secrets
 * and variables, schedules, approvals, cancels and reruns, artifacts and caches.
 */
export function buildCi(parts: CiParts) {
  const { config, database, git, users, repos } = parts;
  const { db } = database;
  const stores = new CiStores(db);
  const versions = new TasksVersions(stores.versions, { caches: parts.caches });
  const lifecycle = new RunLifecycle(stores, versions);
  const tasks = new CiTaskService(stores, {
    taskTimeoutMs: config.ci.taskTimeoutMs,
    heartbeatTimeoutMs: config.ci.heartbeatTimeoutMs,
    abandonedTimeoutMs: config.ci.abandonedTimeoutMs,
    runs: lifecycle,
  });
  const settings = new CiSettingStore(db);
  const orgSettings = new CiOrgSettingsService({
    store: new CiOrgSettingStore(db),
    orgs: parts.orgs,
    admins: parts.admins,
    secretKey: config.secretKey,
  });
  const secrets = new CiSecretService(settings, config.secretKey, orgSettings);
  const variables = new CiVariableService(settings, orgSettings);
  const logs = new TaskLogFiles(join(parts.dataDir, 'ci-logs'));
  const scheduleStore = new ScheduleStore(db);
  const runtimeTokens = new RuntimeTokens(config.secretKey);
  const queries = new RunQueryService({
    runs: stores.runs,
    jobs: stores.jobs,
    repos,
    logs,
    annotations: stores.annotations,
  });
  const triggers = new RunTriggerService({
    runs: stores.runs,
    repos,
    catFiles: git.catFiles,
    versions,
    lifecycle,
    parser: parts.workflowParser,
    forkGate: new ForkPullGate({
      userById: async (id) => {
        const account = await users.findById(id);
        return account && isUser(account) ? account : undefined;
      },
      accessOf: (user, repo) => repos.accessOf(user, repo),
      isApproved: (pullId, actorId) => stores.approvals.isApproved(pullId, actorId),
      lastPusherOf: async (repo, branch) =>
        (await parts.branchPushes.find(repo.id, branch))?.pusherId,
    }),
    schedules: new ScheduleRecords(scheduleStore),
    variables,
    findRepoByName: (owner, name) => parts.repoStore.findByName(owner, name),
  });
  return {
    ciTasks: tasks,
    ciSecrets: secrets,
    ciVariables: variables,
    ciOrgSettings: orgSettings,
    ciRuns: lifecycle,
    ciTriggers: triggers,
    ciDispatch: new TaskDispatchService({
      caches: parts.caches,
      stores,
      tasks,
      versions,
      secrets,
      variables,
      actionsUrl: config.ci.actionsUrl?.href.replace(/\/+$/, ''),
      logRetentionDays: Math.round(config.ci.logRetentionMs / 86_400_000),
      runtimeTokens: {
        mint: (claims, expiresAt) => runtimeTokens.mint(claims, expiresAt),
        lifetimeMs: config.ci.taskTimeoutMs,
      },
    }),
    ciReports: new TaskReportService({
      stores,
      tasks,
      lifecycle,
      logs,
      secrets,
      logRetentionMs: config.ci.logRetentionMs,
      logLimits: config.ci.logLimits,
      caches: parts.caches,
    }),
    ciLogs: logs,
    ciSchedules: new ScheduleService({
      store: scheduleStore,
      start: (repoId, file) => triggers.onSchedule(repoId, file),
    }),
    ciRunQueries: queries,
    ciRunCancels: new RunCancelService({ repos, queries, lifecycle }),
    ciRunApprovals: new RunApprovalService({ repos, queries, stores, lifecycle }),
    ciRunReruns: new RunRerunService({ repos, queries, stores, lifecycle, logs }),
    ...buildCiArtifacts({ ...parts, stores, queries, runtimeTokens }),
  };
}

/**
 * CI reads the workflows at each new tip of a push and starts the `on: push` runs that match;
 * a pull request change starts the base repository's `on: pull_request` runs it matches.
 */
export function subscribeCi(
  events: Pick<EventBus, 'subscribe'>,
  triggers: Pick<RunTriggerService, 'onPush' | 'onPull'>,
): void {
  events.subscribe('push', async (push) => {
    await triggers.onPush(push);
  });
  events.subscribe('pull', async (event) => {
    const trigger = pullTriggerOf(event);
    if (trigger) await triggers.onPull(trigger);
  });
}
