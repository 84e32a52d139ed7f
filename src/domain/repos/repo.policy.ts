import type { OrgRole } from '../orgs/org.service.ts';
import { isActionsBot, taskScopeOf } from '../users/actions-bot.ts';
import type { User } from '../users/user.types.ts';
import {
  type AccessLevel,
  atLeast,
  type CollaboratorPermission,
  type RepoAccess,
  type Repository,
} from './repo.types.ts';

/** Everything the access rule depends on, loaded by the service beforehand. */
export type AccessFacts = {
  readonly viewer: User | undefined;
  readonly isSiteAdmin: boolean;
  /** The viewer's role in the owning organisation, when the owner is one. */
  readonly orgRole: OrgRole | undefined;
  readonly collaborator: CollaboratorPermission | undefined;
};

/**
 * The viewer's access to a repository:
 * - site admins and the owner (or an owner of the owning organisation) administer it;
 * - collaborators get the level they were given; organisation members can read;
 * - anyone may read a public repository; nobody else sees a private one;
 * - the actions bot (a CI task token) has exactly what its task grants on the task's own
 *   repository, and elsewhere only what anyone has — memberships, collaborations and admin
 *   lists never count for it, whatever the database says.
 */
export function accessLevel(repo: Repository, facts: AccessFacts): AccessLevel {
  const { viewer } = facts;
  if (isActionsBot(viewer)) {
    const task = taskScopeOf(viewer);
    if (task?.repoId === repo.id) return task.level;
    return repo.private ? 'none' : 'read';
  }
  if (viewer) {
    if (facts.isSiteAdmin || repo.owner.id === viewer.id || facts.orgRole === 'owner')
      return 'admin';
    if (facts.collaborator) return facts.collaborator;
    if (facts.orgRole === 'member') return 'read';
  }
  return repo.private ? 'none' : 'read';
}

/**
 * Whether the caller may push to the repository (and so create branches and tags in it). A
 * protected branch further refuses deletion and anything but a fast-forward, for everyone: that
 * part is enforced by the repository's pre-receive hook (`src/git/hooks.ts`).
 */
export function mayPush(access: RepoAccess): boolean {
  return atLeast(access.level, 'write');
}

/**
 * Whether the caller writes to the repository beyond its code: publishes and deletes releases
 * and tags, cancels, re-runs and starts workflow runs. The services check the same level with
 * `RepoService.require(…, 'write')`; pages ask here to decide which buttons to show.
 */
export function mayWrite(access: RepoAccess): boolean {
  return atLeast(access.level, 'write');
}

/**
 * Whether the actor may create repositories (new ones and forks) for itself or an organisation.
 * The actions bot may not: a task token works on its task's repository only.
 */
export function mayCreateRepos(actor: User): boolean {
  return !isActionsBot(actor);
}

/** Whether the caller administers the repository: settings, protections, CI secrets. */
export function mayAdministerRepo(access: RepoAccess): boolean {
  return access.level === 'admin';
}

/**
 * Whether the person administers an organisation (creates its repositories, manages its
 * runners): its owners and the instance's admins. Members do not.
 */
export function mayAdministerOrg(role: OrgRole | undefined, isSiteAdmin: boolean): boolean {
  return isSiteAdmin || role === 'owner';
}
