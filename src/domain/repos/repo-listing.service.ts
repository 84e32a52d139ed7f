import { NotFound } from '../errors.ts';
import type { UserService } from '../users/user.service.ts';
import type { Account, User } from '../users/user.types.ts';
import type { Page, RepoStore } from './repo.store.ts';
import type { Repository } from './repo.types.ts';
import type { RepoAccessService } from './repo-access.service.ts';

export type RepoListingDeps = {
  readonly store: RepoStore;
  readonly access: Pick<RepoAccessService, 'scopeOf' | 'accessOfMany' | 'seesOwner'>;
  readonly users: Pick<UserService, 'getAccount'>;
};

/** Lists of repositories, each filtered to what the viewer may see and with their access. */
export class RepoListingService {
  readonly #deps: RepoListingDeps;

  constructor(deps: RepoListingDeps) {
    this.#deps = deps;
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
    const { store, access } = this.#deps;
    const { items, total } = await store.listVisible(access.scopeOf(viewer), page, filter);
    return { items: await access.accessOfMany(viewer, items), total };
  }

  /** Every repository, private ones included, for the operator at the command line. */
  async listAll(page: Page, filter: { ownerId?: string; query?: string } = {}) {
    return this.#deps.store.listVisible({ kind: 'admin' }, page, filter);
  }

  /** Forks of `repo` the viewer can see. */
  async listForksVisible(viewer: User | undefined, repo: Repository, page: Page) {
    const forks = await this.#deps.store.listForks(repo.id);
    const visible = await this.#deps.access.accessOfMany(viewer, forks);
    return { items: visible.slice(page.offset, page.offset + page.limit), total: visible.length };
  }

  /** `/user/repos`: what the person owns, collaborates on, or reaches through an organisation. */
  async listForMember(user: User, page: Page) {
    const { items, total } = await this.#deps.store.listForMember(user.id, page);
    return { items: await this.#deps.access.accessOfMany(user, items), total };
  }

  /**
   * The owner's repositories the viewer may see; NotFound when the owner does not exist for
   * them (a private organisation to an outsider), as its page and its repositories are.
   */
  async listByOwner(
    viewer: User | undefined,
    ownerHandle: string,
    page: Page,
    kind?: Account['kind'],
  ) {
    const owner = await this.#deps.users.getAccount(ownerHandle);
    if ((kind && owner.kind !== kind) || !(await this.#deps.access.seesOwner(viewer, owner)))
      throw new NotFound(
        `${kind === 'org' ? 'org' : 'user'} does not exist [name: ${ownerHandle}]`,
      );
    return this.listVisible(viewer, page, { ownerId: owner.id });
  }
}
