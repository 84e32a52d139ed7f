import type { ChangeClock } from '../../db/change-clock.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { withDigitGroups } from '../../lib/digit-groups.ts';
import { StampedMemo } from '../../lib/stamped-memo.ts';
import type { AdminPolicy } from '../admin/admin.policy.ts';
import { Forbidden, NotFound } from '../errors.ts';
import type { OrgService } from '../orgs/org.service.ts';
import { teamLevelOn } from '../orgs/team.policy.ts';
import type { TeamGrant } from '../orgs/team.types.ts';
import { isActionsBot, taskScopeOf } from '../users/actions-bot.ts';
import type { Account, User } from '../users/user.types.ts';
import type { CollaboratorStore } from './collaborator.store.ts';
import { accessLevel, ownerVisible } from './repo.policy.ts';
import type { RepoStore, VisibilityScope } from './repo.store.ts';
import {
  type AccessLevel,
  atLeast,
  type RepoAccess,
  type Repository,
  type VisibleRepo,
} from './repo.types.ts';

export type RepoAccessDeps = {
  readonly store: Pick<RepoStore, 'findByName' | 'findById'>;
  readonly collaborators: Pick<CollaboratorStore, 'findPermission' | 'listPermissionsOf'>;
  readonly orgs: Pick<OrgService, 'roleOf' | 'membershipsOf'>;
  /** What teams give their members over repositories. */
  readonly teams: {
    /** What the person's teams give them, with the listed repositories each covers. */
    grantsOf(userId: string, repoIds: readonly string[]): Promise<TeamGrant[]>;
  };
  readonly admins: AdminPolicy;
  /** When set, lookups are reused until the database may have changed. */
  readonly changes?: ChangeClock | undefined;
  /** Where the lookups' caches are declared (the composition root's registry). */
  readonly caches?: CacheRegistry;
};

/** Lookups remembered (repository and the viewer's access); beyond this the oldest go. */
const REMEMBERED_LOOKUPS = 2_000;

/**
 * A lookup that many requests may be handed: frozen, repository and owner too, so none can
 * change what the others see, and what is kept by the object (repo-answers.ts) stays true.
 */
export function sharedLookup(repo: Repository, level: RepoAccess['level']): VisibleRepo {
  Object.freeze(repo.owner);
  return Object.freeze({ repo: Object.freeze(repo), access: Object.freeze({ level }) });
}

/** The answer for a repository that is missing or that the viewer may not see: they are alike. */
export function repoNotFound(owner: string, name: string): NotFound {
  return new NotFound(`repository does not exist [owner: ${owner}, name: ${name}]`);
}

/**
 * Who a remembered lookup is for: the person, or for the actions bot the task grant it acts
 * with, since one bot account acts for every task, each with its own repository and level.
 */
function viewerKey(viewer: User | undefined): string {
  const task = taskScopeOf(viewer);
  return task ? `${viewer?.id}:${task.repoId}:${task.level}` : (viewer?.id ?? '');
}

/**
 * Who may see and change which repository: loads the facts `accessLevel` (repo.policy.ts)
 * judges, and remembers each lookup until the database changes.
 */
export class RepoAccessService {
  readonly #deps: RepoAccessDeps;
  /**
   * `get` by viewer, owner and name, and `visibleParent` by viewer and repository. A lookup is
   * two or three queries, most of a repository answer's cost; a repeated one is served from
   * here until anything is written (change-clock.ts), and the same object comes back, which
   * lets the edges keep what they made from it (repo-views.ts).
   */
  readonly #lookups = new StampedMemo<string, VisibleRepo>(REMEMBERED_LOOKUPS);
  readonly #parents = new StampedMemo<string, VisibleRepo | null>(REMEMBERED_LOOKUPS);

  constructor(deps: RepoAccessDeps) {
    this.#deps = deps;
    const bound = `${withDigitGroups(REMEMBERED_LOOKUPS)} lookups`;
    deps.caches?.add(
      { name: 'repo_lookups', key: 'owner, name and viewer', freshness: 'change-stamp', bound },
      this.#lookups,
    );
    deps.caches?.add(
      { name: 'repo_parents', key: 'fork parent and viewer', freshness: 'change-stamp', bound },
      this.#parents,
    );
  }

  scopeOf(viewer: User | undefined): VisibilityScope {
    if (!viewer || isActionsBot(viewer)) return { kind: 'anonymous' };
    if (this.#deps.admins.isAdmin(viewer)) return { kind: 'admin' };
    return { kind: 'user', userId: viewer.id };
  }

  async accessOf(viewer: User | undefined, repo: Repository): Promise<AccessLevel> {
    const actionOwner = this.#deps.admins.isActionOwner(repo.owner.handle);
    if (!viewer || isActionsBot(viewer))
      return accessLevel(repo, {
        viewer,
        isSiteAdmin: false,
        orgRole: undefined,
        collaborator: undefined,
        teamLevel: undefined,
        actionOwner,
      });
    const inOrg = repo.owner.kind === 'org';
    const [orgRole, collaborator, grants] = await Promise.all([
      inOrg ? this.#deps.orgs.roleOf(repo.owner.id, viewer.id) : undefined,
      this.#deps.collaborators.findPermission(repo.id, viewer.id),
      inOrg ? this.#deps.teams.grantsOf(viewer.id, [repo.id]) : [],
    ]);
    return accessLevel(repo, {
      viewer,
      isSiteAdmin: this.#deps.admins.isAdmin(viewer),
      orgRole,
      collaborator,
      teamLevel: teamLevelOn(grants, { id: repo.id, ownerId: repo.owner.id }),
      actionOwner,
    });
  }

  /**
   * Whether the account (and so its repositories) exists for the viewer: a private
   * organisation only for its members and admins (`ownerVisible`, repo.policy.ts).
   */
  async seesOwner(viewer: User | undefined, owner: Account): Promise<boolean> {
    if (!owner.private) return true;
    const orgRole =
      viewer && owner.kind === 'org'
        ? await this.#deps.orgs.roleOf(owner.id, viewer.id)
        : undefined;
    return ownerVisible(owner, { viewer, isSiteAdmin: this.#deps.admins.isAdmin(viewer), orgRole });
  }

  /** Access for a page of repositories with three queries in all, not three per repository. */
  async accessOfMany(
    viewer: User | undefined,
    repos: readonly Repository[],
  ): Promise<VisibleRepo[]> {
    const isSiteAdmin = this.#deps.admins.isAdmin(viewer);
    const ids = repos.map((repo) => repo.id);
    const [memberships, collaborations, grants] = viewer
      ? await Promise.all([
          this.#deps.orgs.membershipsOf(viewer.id),
          this.#deps.collaborators.listPermissionsOf(viewer.id, ids),
          this.#deps.teams.grantsOf(viewer.id, ids),
        ])
      : [new Map(), new Map(), []];
    const visible: VisibleRepo[] = [];
    for (const repo of repos) {
      const level = accessLevel(repo, {
        viewer,
        isSiteAdmin,
        orgRole: memberships.get(repo.owner.id),
        collaborator: collaborations.get(repo.id),
        teamLevel: teamLevelOn(grants, { id: repo.id, ownerId: repo.owner.id }),
        actionOwner: this.#deps.admins.isActionOwner(repo.owner.handle),
      });
      if (level !== 'none') visible.push({ repo, access: { level } });
    }
    return visible;
  }

  /** The repository and the viewer's access; NotFound both when missing and when invisible. */
  async get(viewer: User | undefined, owner: string, name: string): Promise<VisibleRepo> {
    // Only what the store found is kept, and a found owner and name hold no slash, so no other
    // owner and name can make the same key.
    const key = `${viewerKey(viewer)}/${owner}/${name}`;
    return this.#lookups.read(key, this.#deps.changes?.stamp(), async () => {
      const repo = await this.#deps.store.findByName(owner, name);
      if (!repo) throw repoNotFound(owner, name);
      const level = await this.accessOf(viewer, repo);
      if (level === 'none') throw repoNotFound(owner, name);
      return sharedLookup(repo, level);
    });
  }

  /** The repository a fork was made from, when there is one and the viewer may see it. */
  async visibleParent(
    viewer: User | undefined,
    repo: Repository,
  ): Promise<VisibleRepo | undefined> {
    const { parentId } = repo;
    if (!parentId) return undefined;
    // null is kept too: there is no parent this viewer may see.
    const key = `${viewerKey(viewer)}/${parentId}`;
    const parent = await this.#parents.read(key, this.#deps.changes?.stamp(), async () => {
      const found = await this.#deps.store.findById(parentId);
      const level = found ? await this.accessOf(viewer, found) : 'none';
      return found && level !== 'none' ? sharedLookup(found, level) : null;
    });
    return parent ?? undefined;
  }

  /** Like `get`, and Forbidden when the viewer may see but not do `required`. */
  async require(
    viewer: User | undefined,
    owner: string,
    name: string,
    required: AccessLevel,
  ): Promise<VisibleRepo> {
    const visible = await this.get(viewer, owner, name);
    if (!atLeast(visible.access.level, required)) {
      throw new Forbidden(
        `you need ${required} access to ${visible.repo.owner.handle}/${visible.repo.name}`,
      );
    }
    return visible;
  }
}
