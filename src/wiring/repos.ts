import { BranchService } from '../domain/branches/branch.service.ts';
import { CommitAuthorStore } from '../domain/branches/commit-author.store.ts';
import { CommitStatusService } from '../domain/branches/commit-status.service.ts';
import { ArchiveService } from '../domain/code/archive.service.ts';
import { CodeService } from '../domain/code/code.service.ts';
import { CommitSignersStore } from '../domain/keys/commit-signers.store.ts';
import { SshKeyService } from '../domain/keys/ssh-key.service.ts';
import { SshKeyStore } from '../domain/keys/ssh-key.store.ts';
import type { LfsService } from '../domain/lfs/lfs.service.ts';
import { TeamService } from '../domain/orgs/team.service.ts';
import { TeamStore } from '../domain/orgs/team.store.ts';
import { TeamGrantStore } from '../domain/orgs/team-grant.store.ts';
import { TeamIds } from '../domain/orgs/team-ids.ts';
import { ReleaseService } from '../domain/releases/release.service.ts';
import { ReleaseStore } from '../domain/releases/release.store.ts';
import { TagService } from '../domain/releases/tag.service.ts';
import { CollaboratorService } from '../domain/repos/collaborator.service.ts';
import { CollaboratorStore } from '../domain/repos/collaborator.store.ts';
import type { HousekeepingStore } from '../domain/repos/housekeeping.store.ts';
import { ProtectedBranchService } from '../domain/repos/protected-branch.service.ts';
import { ProtectedBranchStore } from '../domain/repos/protected-branch.store.ts';
import { PushService } from '../domain/repos/push.service.ts';
import { RepoService } from '../domain/repos/repo.service.ts';
import { RepoStore } from '../domain/repos/repo.store.ts';
import { RepoAccessService } from '../domain/repos/repo-access.service.ts';
import { RepoLifecycleService } from '../domain/repos/repo-lifecycle.service.ts';
import { RepoListingService } from '../domain/repos/repo-listing.service.ts';
import type { UserStore } from '../domain/users/user.store.ts';
import { listRefs } from '../git/refs.ts';
import type { CoreParts } from './parts.ts';

export type RepoParts = CoreParts & {
  /** Housekeeping's leases, which forks respect. */
  readonly leases: HousekeepingStore;
  /** Resolves Git LFS pointers on pages; absent when LFS is off. */
  readonly lfs: LfsService | undefined;
  /** The accounts' rows, which teams look people up in. */
  readonly userStore: UserStore;
};

/**
 * Repositories and what lives in them: access, listings and lifecycle behind one `RepoService`,
 * collaborators, protected branches, pushes, branches, code, archives, releases and tags.
 */
export function buildRepos(parts: RepoParts) {
  const { config, database, git, events, orgs, admins } = parts;
  const { db, changes } = database;
  const store = new RepoStore(db);
  const collaboratorStore = new CollaboratorStore(db);
  const teamGrants = new TeamGrantStore(db);
  const access = new RepoAccessService({
    store,
    collaborators: collaboratorStore,
    orgs,
    teams: teamGrants,
    admins,
    changes,
    caches: parts.caches,
  });
  const repos = new RepoService({
    access,
    listing: new RepoListingService({
      store,
      access,
      users: parts.users,
      changes,
      caches: parts.caches,
    }),
    lifecycle: new RepoLifecycleService({
      store,
      access,
      orgs,
      admins,
      teams: teamGrants,
      paths: git.paths,
      catFiles: git.catFiles,
      refUpdates: git.refUpdates,
      leases: parts.leases,
      events,
    }),
  });
  const teams = new TeamService({
    store: new TeamStore(db),
    grants: teamGrants,
    orgs,
    users: parts.userStore,
    repos: store,
  });
  const protectedBranches = new ProtectedBranchService(repos, new ProtectedBranchStore(db), {
    users: parts.users,
    // Rules that name teams (who may approve, push or merge) keep and ask them by id.
    teamIds: new TeamIds(new TeamStore(db), teamGrants, orgs),
    branchNames: async (repo) =>
      (await listRefs(repos.handle(repo), git.catFiles)).branches.map((branch) => branch.name),
    allowedSigners: () => new CommitSignersStore(db).allowedSigners(),
  });
  const releaseStore = new ReleaseStore(db, parts.caches);
  const tags = new TagService(repos, releaseStore, git.catFiles);
  return {
    repoStore: store,
    repos,
    teams,
    sshKeys: new SshKeyService({ store: new SshKeyStore(db), users: parts.users, repos }),
    collaborators: new CollaboratorService(repos, collaboratorStore, parts.users),
    protectedBranches,
    pushHandling: new PushService({ repos, events }),
    branches: new BranchService({
      repos,
      protectedBranches,
      authors: new CommitAuthorStore(db),
      catFiles: git.catFiles,
    }),
    commitStatuses: new CommitStatusService(repos, git.catFiles),
    code: new CodeService(repos, git.catFiles, parts.lfs, {
      maxActive: config.raw.maxConcurrent,
      maxWaiting: config.raw.maxQueued,
      maxWaitMs: config.raw.queueTimeoutMs,
    }),
    archives: new ArchiveService({
      repos,
      catFiles: git.catFiles,
      limits: {
        maxActive: config.archive.maxConcurrent,
        maxWaiting: config.archive.maxQueued,
        maxWaitMs: config.archive.queueTimeoutMs,
      },
    }),
    releases: new ReleaseService(repos, releaseStore, tags, events),
    tags,
  };
}
