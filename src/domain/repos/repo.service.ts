import { stat } from 'node:fs/promises';
import type { ChangeClock } from '../../db/change-clock.ts';
import { hasBranches, readHeadState } from '../../git/branches-present.ts';
import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { clearCreationMarker, isAbandonedCreation } from '../../git/creation-marker.ts';
import { isValidRefName } from '../../git/ref-names.ts';
import type { RefUpdatePool } from '../../git/ref-update-pool.ts';
import { findBranch, type RefChange, readDefaultBranch, setDefaultBranch } from '../../git/refs.ts';
import type { RepoHandle, RepoPaths } from '../../git/repo-paths.ts';
import { createFork, deleteRepository, initBare } from '../../git/repository.ts';
import { seedInitialCommit } from '../../git/seed.ts';
import { newId } from '../../lib/ids.ts';
import { Listeners } from '../../lib/listeners.ts';
import { StampedMemo } from '../../lib/stamped-memo.ts';
import type { AdminPolicy } from '../admin/admin.policy.ts';
import { Conflict, Forbidden, Invalid, NotFound } from '../errors.ts';
import type { OrgService } from '../orgs/org.service.ts';
import type { UserService } from '../users/user.service.ts';
import type { Account, User } from '../users/user.types.ts';
import { type HousekeepingStore, withLease } from './housekeeping.store.ts';
import { type IsolationRepair, ObjectIsolation } from './object-isolation.ts';
import { accessLevel } from './repo.policy.ts';
import type { Page, RepoStore, VisibilityScope } from './repo.store.ts';
import {
  type AccessLevel,
  atLeast,
  type RepoAccess,
  type Repository,
  type VisibleRepo,
} from './repo.types.ts';
import { assertValidRepoName } from './repo-name.ts';

export type CreateRepoInput = {
  /** An organisation to create the repository in; the actor's own account when absent. */
  readonly orgName?: string | undefined;
  readonly name: string;
  readonly description?: string | undefined;
  readonly private?: boolean | undefined;
  readonly autoInit?: boolean | undefined;
  readonly defaultBranch?: string | undefined;
};

export type RepoServiceDeps = {
  readonly store: RepoStore;
  readonly users: UserService;
  readonly orgs: OrgService;
  readonly admins: AdminPolicy;
  readonly paths: RepoPaths;
  /** Per-repository object readers, ended when their repository is deleted. */
  readonly catFiles?: CatFilePool;
  /** Per-repository ref writers, likewise. */
  readonly refUpdates?: RefUpdatePool;
  /** When set, lookups are reused until the database may have changed. */
  readonly changes?: ChangeClock;
  /** When set, forks are given their own copies only while housekeeping leaves them alone. */
  readonly leases?: HousekeepingStore;
};

/** Longest a repair of one repository's loans holds its housekeeping lease, and waits for it. */
const REPAIR_LEASE = { holdMs: 60 * 60_000, waitMs: 2 * 60_000 } as const;

const BRANCH_PREFIX = 'refs/heads/';

/** Lookups remembered (repository and the viewer's access); beyond this the oldest go. */
const REMEMBERED_LOOKUPS = 2_000;

/** A directory without a database row older than this is debris of a crashed creation. */
const ORPHAN_AGE_MS = 60_000;

/** A lookup that many requests may be handed: frozen, so none can change what the others see. */
function sharedLookup(repo: Repository, level: RepoAccess['level']): VisibleRepo {
  return Object.freeze({ repo, access: Object.freeze({ level }) });
}

function notFound(owner: string, name: string): NotFound {
  return new NotFound(`repository does not exist [owner: ${owner}, name: ${name}]`);
}

/**
 * Repositories: who may see and change them, and their life cycle on disk and in the database.
 * Creation makes the directory first and the row second (undoing the directory when the row
 * fails); deletion removes the row first, so no row ever points at a missing repository.
 */
export class RepoService {
  readonly #deps: RepoServiceDeps;
  /** Announces each new repository (private ones too; listeners decide what to tell). */
  readonly created = new Listeners<Repository>();
  /** Announces each deleted repository (after its row and directory are gone), with who did it. */
  readonly deleted = new Listeners<{ repo: Repository; actor: User }>();
  /** Announces each fork once it is in place: the new repository, its source and who forked. */
  readonly forked = new Listeners<{ fork: Repository; source: Repository; actor: User }>();
  /**
   * `get` by viewer, owner and name, and `visibleParent` by viewer and repository. A lookup is
   * two or three queries, most of a repository answer's cost; a repeated one is served from
   * here until anything is written (change-clock.ts), and the same object comes back, which
   * lets the edges keep what they made from it (repo-views.ts).
   */
  readonly #lookups = new StampedMemo<string, VisibleRepo>(REMEMBERED_LOOKUPS);
  readonly #parents = new StampedMemo<string, VisibleRepo | null>(REMEMBERED_LOOKUPS);
  /** Who may borrow whose objects (object-isolation.ts); every loan is judged there. */
  readonly #isolation: ObjectIsolation;

  constructor(deps: RepoServiceDeps) {
    this.#deps = deps;
    const { leases } = deps;
    this.#isolation = new ObjectIsolation({
      paths: deps.paths,
      isPublic: async (handle) => {
        const repo = await deps.store.findByName(handle.ref.owner, handle.ref.name);
        return repo !== undefined && !repo.private;
      },
      released: async (handle) => {
        await deps.catFiles?.evict(handle);
        await deps.refUpdates?.evict(handle);
      },
      ...(leases && {
        exclusive: (handle, work) => withLease(leases, handle.key, REPAIR_LEASE, work),
      }),
    });
  }

  handle(repo: Repository): RepoHandle {
    return this.#deps.paths.resolve({ owner: repo.owner.handle, name: repo.name });
  }

  /** The default branch, read live from the repository's HEAD. */
  async defaultBranch(repo: Repository): Promise<string> {
    return (await readDefaultBranch(this.handle(repo))) ?? 'main';
  }

  /** A repository without any branch is empty. */
  async isEmpty(repo: Repository): Promise<boolean> {
    return !(await hasBranches(this.handle(repo)));
  }

  /** Both of the above in one read of HEAD, as every Repository object needs them. */
  async headFacts(repo: Repository): Promise<{ defaultBranch: string; empty: boolean }> {
    const state = await readHeadState(this.handle(repo));
    return { defaultBranch: state.defaultBranch ?? 'main', empty: state.empty };
  }

  scopeOf(viewer: User | undefined): VisibilityScope {
    if (!viewer) return { kind: 'anonymous' };
    if (this.#deps.admins.isAdmin(viewer)) return { kind: 'admin' };
    return { kind: 'user', userId: viewer.id };
  }

  async accessOf(viewer: User | undefined, repo: Repository): Promise<AccessLevel> {
    if (!viewer)
      return accessLevel(repo, {
        viewer,
        isSiteAdmin: false,
        orgRole: undefined,
        collaborator: undefined,
      });
    const [orgRole, collaborator] = await Promise.all([
      repo.owner.kind === 'org' ? this.#deps.orgs.roleOf(repo.owner.id, viewer.id) : undefined,
      this.#deps.store.collaboratorPermission(repo.id, viewer.id),
    ]);
    return accessLevel(repo, {
      viewer,
      isSiteAdmin: this.#deps.admins.isAdmin(viewer),
      orgRole,
      collaborator,
    });
  }

  /** Access for a page of repositories with two queries in all, not two per repository. */
  async accessOfMany(
    viewer: User | undefined,
    repos: readonly Repository[],
  ): Promise<VisibleRepo[]> {
    const isSiteAdmin = this.#deps.admins.isAdmin(viewer);
    const [memberships, collaborations] = viewer
      ? await Promise.all([
          this.#deps.orgs.membershipsOf(viewer.id),
          this.#deps.store.collaborationsOf(
            viewer.id,
            repos.map((repo) => repo.id),
          ),
        ])
      : [new Map(), new Map()];
    const visible: VisibleRepo[] = [];
    for (const repo of repos) {
      const level = accessLevel(repo, {
        viewer,
        isSiteAdmin,
        orgRole: memberships.get(repo.owner.id),
        collaborator: collaborations.get(repo.id),
      });
      if (level !== 'none') visible.push({ repo, access: { level } });
    }
    return visible;
  }

  /** The repository and the viewer's access; NotFound both when missing and when invisible. */
  async get(viewer: User | undefined, owner: string, name: string): Promise<VisibleRepo> {
    // Only what the store found is kept, and a found owner and name hold no slash, so no other
    // owner and name can make the same key.
    const key = `${viewer?.id ?? ''}/${owner}/${name}`;
    return this.#lookups.read(key, this.#deps.changes?.stamp(), async () => {
      const repo = await this.#deps.store.findByName(owner, name);
      if (!repo) throw notFound(owner, name);
      const level = await this.accessOf(viewer, repo);
      if (level === 'none') throw notFound(owner, name);
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
    const key = `${viewer?.id ?? ''}/${parentId}`;
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

  async findById(id: string): Promise<Repository | undefined> {
    return this.#deps.store.findById(id);
  }

  async findManyByIds(ids: readonly string[]): Promise<Map<string, Repository>> {
    return this.#deps.store.findManyByIds(ids);
  }

  async listVisible(
    viewer: User | undefined,
    page: Page,
    filter: { ownerId?: string; query?: string } = {},
  ) {
    const { items, total } = await this.#deps.store.listVisible(this.scopeOf(viewer), page, filter);
    return { items: await this.accessOfMany(viewer, items), total };
  }

  /** Every repository, private ones included, for the operator at the command line. */
  async listAll(page: Page, filter: { ownerId?: string } = {}) {
    return this.#deps.store.listVisible({ kind: 'admin' }, page, filter);
  }

  /** Forks of `repo` the viewer can see. */
  async listForksVisible(viewer: User | undefined, repo: Repository, page: Page) {
    const visible = await this.accessOfMany(viewer, await this.#deps.store.listForks(repo.id));
    return { items: visible.slice(page.offset, page.offset + page.limit), total: visible.length };
  }

  /** `/user/repos`: what the person owns, collaborates on, or reaches through an organisation. */
  async listForMember(user: User, page: Page) {
    const { items, total } = await this.#deps.store.listForMember(user.id, page);
    return { items: await this.accessOfMany(user, items), total };
  }

  async listByOwner(
    viewer: User | undefined,
    ownerHandle: string,
    page: Page,
    kind?: Account['kind'],
  ) {
    const owner = await this.#deps.users.getAccount(ownerHandle);
    if (kind && owner.kind !== kind)
      throw new NotFound(
        `${kind === 'org' ? 'org' : 'user'} does not exist [name: ${ownerHandle}]`,
      );
    return this.listVisible(viewer, page, { ownerId: owner.id });
  }

  async create(actor: User, input: CreateRepoInput): Promise<VisibleRepo> {
    assertValidRepoName(input.name);
    const description = (input.description ?? '').trim();
    if (description.length > 2048) throw new Invalid('description must be at most 2048 characters');
    const defaultBranch = input.defaultBranch?.trim() || 'main';
    if (!isValidRefName(`refs/heads/${defaultBranch}`))
      throw new Invalid(`"${defaultBranch}" is not a valid branch name`);
    const owner = input.orgName ? await this.#orgForCreation(actor, input.orgName) : actor;
    if (await this.#deps.store.findByName(owner.handle, input.name)) {
      throw new Conflict('The repository with the same name already exists.');
    }
    const repo: Repository = {
      id: newId(),
      owner,
      name: input.name,
      description,
      private: input.private === true,
      parentId: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    };
    const handle = this.handle(repo);
    await this.#makeDirectory(repo, () => initBare(this.#deps.paths, handle, { defaultBranch }));
    try {
      if (input.autoInit) {
        await seedInitialCommit(handle, {
          branch: defaultBranch,
          files: [
            {
              name: 'README.md',
              content: `# ${repo.name}\n${description ? `\n${description}\n` : ''}`,
            },
          ],
          message: 'Initial commit',
          author: { name: actor.fullName || actor.handle, email: actor.email },
        });
      }
      await this.#insert(repo);
    } catch (error) {
      await deleteRepository(this.#deps.paths, handle).catch(() => {});
      throw error;
    }
    await clearCreationMarker(handle);
    await this.created.emit(repo);
    return { repo, access: { level: 'admin' } };
  }

  async fork(
    actor: User,
    owner: string,
    name: string,
    input: { orgName?: string; name?: string },
  ): Promise<VisibleRepo> {
    const { repo: source } = await this.get(actor, owner, name);
    const forkOwner = input.orgName ? await this.#orgForCreation(actor, input.orgName) : actor;
    const forkName = input.name || source.name;
    assertValidRepoName(forkName);
    if (forkOwner.id === source.owner.id && forkName.toLowerCase() === source.name.toLowerCase()) {
      throw new Conflict('A repository cannot be forked into itself.');
    }
    if (await this.#deps.store.findByName(forkOwner.handle, forkName)) {
      throw new Conflict('The repository with the same name already exists.');
    }
    const fork: Repository = {
      id: newId(),
      owner: forkOwner,
      name: forkName,
      description: source.description,
      private: source.private,
      parentId: source.id,
      createdAt: new Date(),
      updatedAt: new Date(),
    };
    const handle = this.handle(fork);
    const parent = this.handle(source);
    const shareObjects = !source.private;
    await this.#makeDirectory(fork, () =>
      // Only a public parent's objects may be shared (object-isolation.ts).
      createFork(this.#deps.paths, parent, handle, { shareObjects }),
    );
    try {
      await this.#insert(fork);
      // The parent may have been made private or deleted while the fork was being made, after
      // that change looked for borrowers and before this one was in place.
      const now = shareObjects ? await this.#deps.store.findById(source.id) : source;
      const repairs = !now || now.private ? await this.#enforceIsolation([parent]) : [];
      if (repairs.some((r) => r.repository === handle.key && r.outcome === 'refused')) {
        throw new Conflict('The repository was deleted while it was being forked.');
      }
    } catch (error) {
      await this.#deps.store.delete(fork.id).catch(() => {});
      await deleteRepository(this.#deps.paths, handle).catch(() => {});
      throw error;
    }
    await clearCreationMarker(handle);
    await this.forked.emit({ fork, source, actor });
    return { repo: fork, access: { level: 'admin' } };
  }

  async delete(actor: User, owner: string, name: string): Promise<void> {
    const { repo } = await this.require(actor, owner, name, 'admin');
    const handle = this.handle(repo);
    // Borrowers get their own copies while the objects are still there to copy; looked for
    // again once the row is gone, for a fork made in between.
    await this.#enforceIsolation([handle]);
    await this.#deps.store.delete(repo.id);
    await this.#enforceIsolation([handle]);
    // A reader left open on the old directory must not serve a new repository of this name.
    await this.#deps.catFiles?.evict(handle);
    await this.#deps.refUpdates?.evict(handle);
    await deleteRepository(this.#deps.paths, handle).catch((error: unknown) => {
      if (!(error instanceof NotFound)) throw error;
    });
    await this.deleted.emit({ repo, actor });
  }

  async updateSettings(
    actor: User,
    owner: string,
    name: string,
    change: { description?: string; private?: boolean; defaultBranch?: string },
  ): Promise<Repository> {
    const { repo } = await this.require(actor, owner, name, 'admin');
    if (change.description !== undefined && change.description.length > 2048) {
      throw new Invalid('description must be at most 2048 characters');
    }
    if (change.defaultBranch !== undefined) {
      const branch = change.defaultBranch.trim();
      if (!isValidRefName(`refs/heads/${branch}`))
        throw new Invalid(`"${branch}" is not a valid branch name`);
      await setDefaultBranch(this.handle(repo), branch);
    }
    // Repositories that borrow its objects would go on serving what it receives once private:
    // they get their own copies before, and a fork made meanwhile after.
    const withdrawn = change.private === true && !repo.private ? [this.handle(repo)] : [];
    if (withdrawn.length > 0) await this.#enforceIsolation(withdrawn);
    const update: { description?: string; private?: boolean } = {};
    if (change.description !== undefined) update.description = change.description.trim();
    if (change.private !== undefined) update.private = change.private;
    await this.#deps.store.update(repo.id, update);
    if (withdrawn.length > 0) await this.#enforceIsolation(withdrawn);
    return (await this.#deps.store.findById(repo.id)) ?? repo;
  }

  /** Marks the repository as changed now (after a push, a merge, a release). */
  async touch(repo: Repository): Promise<void> {
    await this.#deps.store.touch(repo.id);
  }

  /**
   * After a push that moved refs: marks the repository changed, and when its default branch
   * does not exist but the push created branches, makes the first of them (by name) the default,
   * as Gitea does, so that a repository whose first push was some other branch than `main`
   * clones with that branch checked out rather than nothing.
   */
  async pushed(repo: Repository, changes: readonly RefChange[]): Promise<void> {
    await this.touch(repo);
    const created = changes
      .filter((change) => change.oldSha === null && change.newSha !== null)
      .map((change) => change.ref)
      .filter((ref) => ref.startsWith(BRANCH_PREFIX));
    if (created.length === 0) return;
    const handle = this.handle(repo);
    const current = await readDefaultBranch(handle);
    if (current !== undefined && (await findBranch(handle, current)) !== undefined) return;
    await setDefaultBranch(handle, created[0]!.slice(BRANCH_PREFIX.length));
  }

  /**
   * Finds every repository that borrows objects it may not (object-isolation.ts) and gives it
   * its own copies: forks that earlier versions of Kiln made of private repositories, loans left
   * by a crash between two steps, alternates written by hand. Idempotent and cheap once done
   * (a directory listing and an alternates read per repository), so it is run at every start.
   */
  async enforceObjectIsolation(): Promise<IsolationRepair[]> {
    return this.#isolation.enforce();
  }

  /**
   * `enforce` with `withdrawn` lending no more. Whatever it finds is repaired either way (a loan
   * that could not become copies is cut), so callers go on; a fork checks its own outcome.
   */
  async #enforceIsolation(withdrawn: readonly RepoHandle[]): Promise<IsolationRepair[]> {
    return this.#isolation.enforce(withdrawn);
  }

  async #orgForCreation(actor: User, orgName: string): Promise<Account> {
    const org = await this.#deps.orgs.getOrg(orgName);
    const role = await this.#deps.orgs.roleOf(org.id, actor.id);
    if (role !== 'owner' && !this.#deps.admins.isAdmin(actor)) {
      if (role === undefined) throw new NotFound(`org does not exist [name: ${orgName}]`);
      throw new Forbidden('Given user is not owner of organization.');
    }
    return org;
  }

  /**
   * Runs a directory-making step; when it fails because a directory without any row is in the
   * way (debris of a creation that crashed between the two), that debris is removed and the step
   * retried once. Young directories are left alone (another process may be mid-creation) unless
   * their creation marker names a process of this host that is gone.
   */
  async #makeDirectory(repo: Repository, make: () => Promise<void>): Promise<void> {
    try {
      await make();
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
      const handle = this.handle(repo);
      const info = await stat(handle.path).catch(() => undefined);
      const row = await this.#deps.store.findByName(repo.owner.handle, repo.name);
      const young = info !== undefined && Date.now() - info.mtimeMs < ORPHAN_AGE_MS;
      if (row || !info || (young && !(await isAbandonedCreation(handle)))) {
        throw new Conflict('The repository with the same name already exists.');
      }
      await deleteRepository(this.#deps.paths, handle);
      await make();
    }
  }

  async #insert(repo: Repository): Promise<void> {
    await this.#deps.store.insert({
      id: repo.id,
      owner_id: repo.owner.id,
      name: repo.name,
      name_lower: repo.name.toLowerCase(),
      description: repo.description,
      private: repo.private,
      parent_id: repo.parentId,
      pull_counter: 0,
      created_at: repo.createdAt.getTime(),
      updated_at: repo.updatedAt.getTime(),
    });
  }
}
