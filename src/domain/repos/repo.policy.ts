import type { OrgRole } from '../orgs/org.service.ts';
import { higherLevel } from '../orgs/team.policy.ts';
import { isActionsBot, taskScopeOf } from '../users/actions-bot.ts';
import type { Account, User } from '../users/user.types.ts';
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
  /**
   * The highest level the viewer's teams in the owning organisation give over this repository
   * (`teamLevelOn`, team.policy.ts), the Owners team aside: ownership is `orgRole`.
   */
  readonly teamLevel: CollaboratorPermission | undefined;
  /** Whether the owner is an action owner (AdminPolicy.isActionOwner): admins alone write there. */
  readonly actionOwner: boolean;
};

/**
 * Whether an account, and so every repository it owns, exists for the viewer. People and public
 * organisations exist for everyone; a private organisation only for its members (any role) and
 * the instance's administrators. For everyone else it and its repositories are NotFound, the
 * same answer as for what does not exist (never Forbidden, which would confirm it does).
 */
export function ownerVisible(
  owner: Account,
  facts: Pick<AccessFacts, 'viewer' | 'isSiteAdmin' | 'orgRole'>,
): boolean {
  if (!owner.private) return true;
  const { viewer } = facts;
  if (!viewer) return false;
  return facts.isSiteAdmin || facts.orgRole !== undefined || owner.id === viewer.id;
}

/**
 * The viewer's access to a repository. The rule every read of a repository follows (lookups,
 * lists, counts, search, git transport, MCP; the listing queries in repo.store.ts state the same
 * rule in SQL, `visibleTo`):
 * - site admins and the owner (or an owner of the owning organisation) administer it;
 * - collaborators get the level they were given, even in a private organisation they do not
 *   belong to (as in Gitea: the organisation let them in); organisation members can read, and
 *   a member of teams that cover the repository gets the highest of the teams' levels (and of
 *   a collaboration): a team counts only while its member belongs to the organisation;
 * - anyone else reads it only when it is public AND its owner is visible to them
 *   (`ownerVisible`): a public repository of a private organisation is hidden with it;
 * - the actions bot (a CI task token) has exactly what its task grants on the task's own
 *   repository, and elsewhere only what an anonymous visitor has — memberships, collaborations
 *   and admin lists never count for it, whatever the database says;
 * - under an action owner (`actionOwner`), nobody but a site admin writes: every other level
 *   above read, the bot's included, is read.
 */
export function accessLevel(repo: Repository, facts: AccessFacts): AccessLevel {
  const level = grantedLevel(repo, facts);
  // Invariant: under an action owner, only the instance's administrators write. Runners fetch a
  // host-less `uses: owner/repo@ref` from these repositories and run it in other people's jobs
  // with their tokens, so whatever role, collaboration, ownership or task grant a non-admin holds
  // there, it reads and no more. Every edge (git push, REST, pages, MCP) asks here.
  const isAdmin = facts.isSiteAdmin && !isActionsBot(facts.viewer);
  if (facts.actionOwner && !isAdmin && atLeast(level, 'write')) return 'read';
  return level;
}

/** The level the viewer's place gives them, before the action-owner cap of `accessLevel`. */
function grantedLevel(repo: Repository, facts: AccessFacts): AccessLevel {
  const { viewer } = facts;
  if (isActionsBot(viewer)) {
    const task = taskScopeOf(viewer);
    if (task?.repoId === repo.id) return task.level;
    return visibleToAnyone(repo) ? 'read' : 'none';
  }
  if (viewer) {
    if (facts.isSiteAdmin || repo.owner.id === viewer.id || facts.orgRole === 'owner')
      return 'admin';
    // Invariant: teams are read here and nowhere else, so every edge (REST, git over HTTP and
    // SSH, pages, MCP) gives a team's members the same level.
    const team = facts.orgRole === 'member' ? higherLevel(facts.teamLevel, 'read') : undefined;
    const level = higherLevel(facts.collaborator, team);
    if (level) return level;
  }
  return repo.private || !ownerVisible(repo.owner, facts) ? 'none' : 'read';
}

/**
 * Whether a repository is what an anonymous visitor may read: public, and owned by an account
 * everyone sees. Only such a repository leaves the instance (federation actors, announcements)
 * or shows public-only facts such as remote stars.
 */
export function visibleToAnyone(repo: Repository): boolean {
  return !repo.private && !repo.owner.private;
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

/**
 * Whether a person may create repositories (new ones and forks) in their own account. A person
 * who holds an action owner's name and is not an administrator may not: `accessLevel`'s
 * invariant, which caps them at read in what that account already holds, would otherwise be
 * side-stepped by forking someone's action into it or creating it anew.
 */
export function mayCreateOwnRepos(isSiteAdmin: boolean, actionOwner: boolean): boolean {
  return isSiteAdmin || !actionOwner;
}

/** Whether the caller administers the repository: settings, protections, CI secrets. */
export function mayAdministerRepo(access: RepoAccess): boolean {
  return access.level === 'admin';
}

/**
 * Whether the person administers an organisation (creates its repositories, manages its
 * members and runners): its owners and the instance's admins. Members do not. An action owner
 * (`actionOwner`) is administered by the instance's admins alone, its own owners included: the
 * same invariant as `accessLevel`'s, so nobody else adds repositories, members or runners there.
 */
export function mayAdministerOrg(
  role: OrgRole | undefined,
  isSiteAdmin: boolean,
  actionOwner: boolean,
): boolean {
  return isSiteAdmin || (role === 'owner' && !actionOwner);
}
