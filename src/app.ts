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
import { startZombieSweep } from './domain/ci/zombie-sweep.ts';
import { CodeService } from './domain/code/code.service.ts';
import { OrgService } from './domain/orgs/org.service.ts';
import { PullService } from './domain/pulls/pull.service.ts';
import { PullStore } from './domain/pulls/pull.store.ts';
import { PullMergeService } from './domain/pulls/pull-merge.service.ts';
import { ReviewCommentService } from './domain/pulls/review-comment.service.ts';
import { ReleaseService } from './domain/releases/release.service.ts';
import { ReleaseStore } from './domain/releases/release.store.ts';
import { CollaboratorService } from './domain/repos/collaborator.service.ts';
import { HousekeepingService } from './domain/repos/housekeeping.service.ts';
import { HousekeepingStore } from './domain/repos/housekeeping.store.ts';
import { ProtectedBranchService } from './domain/repos/protected-branch.service.ts';
import { PushEvents } from './domain/repos/push-events.ts';
import { RepoService } from './domain/repos/repo.service.ts';
import { RepoStore } from './domain/repos/repo.store.ts';
import { RunnerAdminService } from './domain/runners/runner-admin.service.ts';
import { RunnerRegistryService } from './domain/runners/runner-registry.service.ts';
import { LoginThrottle } from './domain/sessions/login-throttle.ts';
import { SessionService } from './domain/sessions/session.service.ts';
import { TokenService } from './domain/tokens/token.service.ts';
import { UserService } from './domain/users/user.service.ts';
import { UserStore } from './domain/users/user.store.ts';
import { CatFilePool } from './git/cat-file-pool.ts';
import { RefUpdatePool } from './git/ref-update-pool.ts';
import { RepoPaths } from './git/repo-paths.ts';
import { sweepTempDirs } from './git/repository.ts';

/** The domain services, built once per process and shared by every edge (HTTP, CLI, MCP). */
export type Services = {
  readonly users: UserService;
  readonly tokens: TokenService;
  readonly sessions: SessionService;
  /** Failed sign-ins per account name and client address, kept in the database. */
  readonly loginThrottle: LoginThrottle;
  readonly orgs: OrgService;
  readonly admins: AdminPolicy;
  readonly repos: RepoService;
  readonly collaborators: CollaboratorService;
  readonly protectedBranches: ProtectedBranchService;
  readonly pushes: PushEvents;
  /** Background repacking of repositories after pushes. */
  readonly housekeeping: HousekeepingService;
  readonly pulls: PullService;
  readonly pullMerges: PullMergeService;
  readonly reviewComments: ReviewCommentService;
  readonly branches: BranchService;
  /** Commit statuses: a stub that keeps nothing (SPEC.md). */
  readonly commitStatuses: CommitStatusService;
  readonly releases: ReleaseService;
  /** The runner protocol's registry: register, declare, authenticate. */
  readonly runners: RunnerRegistryService;
  readonly runnerAdmin: RunnerAdminService;
  readonly ciTasks: CiTaskService;
  readonly ciSecrets: CiSecretService;
  readonly ciVariables: CiVariableService;
  /** Reading code for pages: trees, files, history, commits. */
  readonly code: CodeService;
};

/** The git layer's long-lived parts. */
export type GitContext = {
  readonly paths: RepoPaths;
  readonly catFiles: CatFilePool;
  readonly refUpdates: RefUpdatePool;
};

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
  const pulls = new PullService({ store: pullStore, repos, users, catFiles: git.catFiles });
  pushes.subscribe(async ({ repo, changes }) => {
    for (const change of changes) {
      if (change.newSha && change.ref.startsWith('refs/heads/')) {
        await pulls.onBranchPushed(repo, change.ref.slice('refs/heads/'.length), change.newSha);
      }
    }
  });
  const housekeeping = new HousekeepingService({
    store: housekeepingStore,
    paths: git.paths,
    settings: config.housekeeping,
    onError: (error) => process.stderr.write(`kiln: housekeeping failed: ${String(error)}\n`),
  });
  pushes.subscribe(async ({ repo }) => housekeeping.afterPush(repo));
  const ciTasks = new CiTaskService(db, { taskTimeoutMs: config.ci.taskTimeoutMs });
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
    reviewComments: new ReviewCommentService(db, pulls, repos, git.catFiles),
    branches: new BranchService({
      repos,
      protectedBranches,
      authors: new CommitAuthorStore(db),
      catFiles: git.catFiles,
    }),
    commitStatuses: new CommitStatusService(repos, git.catFiles),
    releases: new ReleaseService(repos, new ReleaseStore(db), git.catFiles),
    runners: new RunnerRegistryService(db),
    runnerAdmin: new RunnerAdminService(db, admins, orgs),
    ciTasks,
    ciSecrets: new CiSecretService(db, config.secretKey),
    ciVariables: new CiVariableService(db),
    code: new CodeService(repos, git.catFiles),
  };
  const zombieSweep = startZombieSweep(ciTasks, config.ci.zombieReclaimIntervalMs, (error) => {
    process.stderr.write(`kiln: CI zombie sweep failed: ${String(error)}\n`);
  });
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
      await Promise.all([zombieSweep.stop(), housekeeping.close()]);
      await Promise.all([git.catFiles.closeAll(), git.refUpdates.closeAll()]);
      await database.close();
    },
  };
}
