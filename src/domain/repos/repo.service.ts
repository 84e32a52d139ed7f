import { hasBranches, readHeadState } from '../../git/branches-present.ts';
import { readDefaultBranch } from '../../git/refs.ts';
import type { Repository } from './repo.types.ts';
import type { RepoAccessService } from './repo-access.service.ts';
import type { RepoLifecycleService } from './repo-lifecycle.service.ts';
import type { RepoListingService } from './repo-listing.service.ts';

export type { CreateRepoInput } from './repo-lifecycle.service.ts';

/** The focused services behind `RepoService`, built by the composition root. */
export type RepoServiceParts = {
  readonly access: RepoAccessService;
  readonly listing: RepoListingService;
  readonly lifecycle: RepoLifecycleService;
};

/**
 * Repositories as the edges and other aggregates ask about them: one name for three focused
 * services, so callers keep one dependency while each rule lives in one place.
 * - who may see and change a repository, remembered per lookup: `RepoAccessService`;
 * - lists filtered to what the viewer may see: `RepoListingService`;
 * - creation, forks, settings, deletion and pushes, on disk and in the database:
 *   `RepoLifecycleService`.
 * Each method here is the focused service's own, documented there.
 */
export class RepoService {
  readonly handle: RepoLifecycleService['handle'];
  readonly scopeOf: RepoAccessService['scopeOf'];
  readonly accessOf: RepoAccessService['accessOf'];
  readonly accessOfMany: RepoAccessService['accessOfMany'];
  readonly get: RepoAccessService['get'];
  readonly visibleParent: RepoAccessService['visibleParent'];
  readonly require: RepoAccessService['require'];
  readonly findById: RepoListingService['findById'];
  readonly findManyByIds: RepoListingService['findManyByIds'];
  readonly listVisible: RepoListingService['listVisible'];
  readonly listAll: RepoListingService['listAll'];
  readonly listForksVisible: RepoListingService['listForksVisible'];
  readonly listForMember: RepoListingService['listForMember'];
  readonly listByOwner: RepoListingService['listByOwner'];
  readonly create: RepoLifecycleService['create'];
  readonly fork: RepoLifecycleService['fork'];
  readonly delete: RepoLifecycleService['delete'];
  readonly updateSettings: RepoLifecycleService['updateSettings'];
  readonly touch: RepoLifecycleService['touch'];
  readonly pushed: RepoLifecycleService['pushed'];
  readonly enforceObjectIsolation: RepoLifecycleService['enforceObjectIsolation'];

  constructor({ access, listing, lifecycle }: RepoServiceParts) {
    this.handle = lifecycle.handle.bind(lifecycle);
    this.scopeOf = access.scopeOf.bind(access);
    this.accessOf = access.accessOf.bind(access);
    this.accessOfMany = access.accessOfMany.bind(access);
    this.get = access.get.bind(access);
    this.visibleParent = access.visibleParent.bind(access);
    this.require = access.require.bind(access);
    this.findById = listing.findById.bind(listing);
    this.findManyByIds = listing.findManyByIds.bind(listing);
    this.listVisible = listing.listVisible.bind(listing);
    this.listAll = listing.listAll.bind(listing);
    this.listForksVisible = listing.listForksVisible.bind(listing);
    this.listForMember = listing.listForMember.bind(listing);
    this.listByOwner = listing.listByOwner.bind(listing);
    this.create = lifecycle.create.bind(lifecycle);
    this.fork = lifecycle.fork.bind(lifecycle);
    this.delete = lifecycle.delete.bind(lifecycle);
    this.updateSettings = lifecycle.updateSettings.bind(lifecycle);
    this.touch = lifecycle.touch.bind(lifecycle);
    this.pushed = lifecycle.pushed.bind(lifecycle);
    this.enforceObjectIsolation = lifecycle.enforceObjectIsolation.bind(lifecycle);
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
}
