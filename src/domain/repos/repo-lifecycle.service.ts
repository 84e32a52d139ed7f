import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { clearCreationMarker } from '../../git/creation-marker.ts';
import { isValidRefName } from '../../git/ref-names.ts';
import type { RefUpdatePool } from '../../git/ref-update-pool.ts';
import { findBranch, type RefChange, readDefaultBranch, setDefaultBranch } from '../../git/refs.ts';
import type { RepoHandle, RepoPaths } from '../../git/repo-paths.ts';
import { createFork, deleteRepository, initBare } from '../../git/repository.ts';
import { seedInitialCommit } from '../../git/seed.ts';
import { newId } from '../../lib/ids.ts';
import type { AdminPolicy } from '../admin/admin.policy.ts';
import { Conflict, Forbidden, Invalid, NotFound } from '../errors.ts';
import type { EventPublisher } from '../events.ts';
import type { OrgService } from '../orgs/org.service.ts';
import type { User } from '../users/user.types.ts';
import type { CreationOwnerDeps } from './creation-owner.ts';
import { ownerForCreation } from './creation-owner.ts';
import { type IsolationRepair, ObjectIsolation } from './object-isolation.ts';
import { mayCreateRepos } from './repo.policy.ts';
import type { RepoStore } from './repo.store.ts';
import type { Repository, VisibleRepo } from './repo.types.ts';
import type { RepoAccessService } from './repo-access.service.ts';
import { makeRepoDirectory } from './repo-directory.ts';
import { type RepoLeaseClaims, withLease } from './repo-leases.ts';
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

export type RepoLifecycleDeps = {
  readonly store: RepoStore;
  readonly access: Pick<RepoAccessService, 'get' | 'require'>;
  readonly orgs: Pick<OrgService, 'getOrg' | 'roleOf'>;
  readonly admins: AdminPolicy;
  /** Teams that let their members create repositories in their organisation. */
  readonly teams?: CreationOwnerDeps['teams'];
  readonly paths: RepoPaths;
  /** Per-repository object readers, ended when their repository is deleted. */
  readonly catFiles?: CatFilePool | undefined;
  /** Per-repository ref writers, likewise. */
  readonly refUpdates?: RefUpdatePool | undefined;
  /** When set, forks are given their own copies only while housekeeping leaves them alone. */
  readonly leases?: RepoLeaseClaims | undefined;
  /** Where creations, forks, changes of settings and deletions are announced (`repo.*`). */
  readonly events: EventPublisher;
};

/** Longest a repair of one repository's loans holds its housekeeping lease, and waits for it. */
const REPAIR_LEASE = { holdMs: 60 * 60_000, waitMs: 2 * 60_000 } as const;

const BRANCH_PREFIX = 'refs/heads/';

function refuseRepoCreation(actor: User): void {
  if (!mayCreateRepos(actor)) throw new Forbidden('a CI task token cannot create repositories');
}

/**
 * Repositories on disk and in the database: creation, forks, settings, deletion and what a push
 * changes. Creation makes the directory first and the row second (undoing the directory when the
 * row fails); deletion removes the row first, so no row ever points at a missing repository.
 */
export class RepoLifecycleService {
  readonly #deps: RepoLifecycleDeps;
  /** Who may borrow whose objects (object-isolation.ts); every loan is judged there. */
  readonly #isolation: ObjectIsolation;

  constructor(deps: RepoLifecycleDeps) {
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

  async create(actor: User, input: CreateRepoInput): Promise<VisibleRepo> {
    refuseRepoCreation(actor);
    assertValidRepoName(input.name);
    const description = (input.description ?? '').trim();
    if (description.length > 2048) throw new Invalid('description must be at most 2048 characters');
    const defaultBranch = input.defaultBranch?.trim() || 'main';
    if (!isValidRefName(`refs/heads/${defaultBranch}`))
      throw new Invalid(`"${defaultBranch}" is not a valid branch name`);
    const owner = await ownerForCreation(this.#deps, actor, input.orgName);
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
    await makeRepoDirectory(this.#deps, repo, handle, () =>
      initBare(this.#deps.paths, handle, { defaultBranch }),
    );
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
      await this.#deps.store.insert(repo);
    } catch (error) {
      await deleteRepository(this.#deps.paths, handle).catch(() => {});
      throw error;
    }
    await clearCreationMarker(handle);
    await this.#deps.events.publish('repo.created', repo);
    return { repo, access: { level: 'admin' } };
  }

  async fork(
    actor: User,
    owner: string,
    name: string,
    input: { orgName?: string; name?: string },
  ): Promise<VisibleRepo> {
    refuseRepoCreation(actor);
    const { repo: source } = await this.#deps.access.get(actor, owner, name);
    const forkOwner = await ownerForCreation(this.#deps, actor, input.orgName);
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
    await makeRepoDirectory(this.#deps, fork, handle, () =>
      // Only a public parent's objects may be shared (object-isolation.ts).
      createFork(this.#deps.paths, parent, handle, { shareObjects }),
    );
    try {
      await this.#deps.store.insert(fork);
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
    await this.#deps.events.publish('repo.forked', { fork, source, actor });
    return { repo: fork, access: { level: 'admin' } };
  }

  async delete(actor: User, owner: string, name: string): Promise<void> {
    const { repo } = await this.#deps.access.require(actor, owner, name, 'admin');
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
    await this.#deps.events.publish('repo.deleted', { repo, actor });
  }

  async updateSettings(
    actor: User,
    owner: string,
    name: string,
    change: { description?: string; private?: boolean; defaultBranch?: string },
  ): Promise<Repository> {
    const { repo } = await this.#deps.access.require(actor, owner, name, 'admin');
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
    const after = (await this.#deps.store.findById(repo.id)) ?? repo;
    await this.#deps.events.publish('repo.changed', { before: repo, after });
    return after;
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
}
