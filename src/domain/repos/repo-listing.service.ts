import type { ChangeClock } from '../../db/change-clock.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { StampedMemo } from '../../lib/stamped-memo.ts';
import { NotFound } from '../errors.ts';
import type { Page } from '../paging.ts';
import type { UserService } from '../users/user.service.ts';
import type { Account, User } from '../users/user.types.ts';
import type { RepoStore } from './repo.store.ts';
import type { Repository, VisibleRepo } from './repo.types.ts';
import { type RepoAccessService, sharedLookup } from './repo-access.service.ts';

export type RepoListingDeps = {
  readonly store: RepoStore;
  readonly access: Pick<RepoAccessService, 'scopeOf' | 'accessOfMany' | 'seesOwner'>;
  readonly users: Pick<UserService, 'getAccount'>;
  /** When set, pages are reused until the database may have changed. */
  readonly changes?: ChangeClock | undefined;
  /** Where the pages' cache is declared (the composition root's registry). */
  readonly caches?: CacheRegistry;
};

/** One page of a list, with the size of the whole list. */
export type VisiblePage = { readonly items: readonly VisibleRepo[]; readonly total: number };

/** Pages remembered (by list, caller and page); beyond this the oldest go. */
const REMEMBERED_PAGES = 500;

/** A page that many requests may be handed: frozen, so none can change what the others see. */
function sharedPage({ items, total }: { items: VisibleRepo[]; total: number }): VisiblePage {
  return Object.freeze({
    items: Object.freeze(items.map(({ repo, access }) => sharedLookup(repo, access.level))),
    total,
  });
}

/** Lists of repositories, each filtered to what the viewer may see and with their access. */
export class RepoListingService {
  readonly #deps: RepoListingDeps;
  /**
   * Pages of the lists callers read, kept until anything is written (change-clock.ts), as
   * single lookups are (repo-access.service.ts). A page is four or five queries, most of a list
   * answer's cost, and clients poll the same lists again and again.
   */
  readonly #pages = new StampedMemo<string, VisiblePage>(REMEMBERED_PAGES);

  constructor(deps: RepoListingDeps) {
    this.#deps = deps;
    deps.caches?.add(
      {
        name: 'repo_list_pages',
        key: 'list, viewer and page',
        freshness: 'change-stamp',
        bound: `${REMEMBERED_PAGES} pages`,
      },
      this.#pages,
    );
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
  ): Promise<VisiblePage> {
    const scope = this.#deps.access.scopeOf(viewer).kind;
    const key = ['visible', scope, viewer?.id, page, filter.ownerId, filter.query];
    return this.#remembered(key, () => this.#readVisible(viewer, page, filter));
  }

  async #readVisible(
    viewer: User | undefined,
    page: Page,
    filter: { ownerId?: string; query?: string },
  ) {
    const { store, access } = this.#deps;
    const { items, total } = await store.listVisible(access.scopeOf(viewer), page, filter);
    return { items: await access.accessOfMany(viewer, items), total };
  }

  /**
   * The page `load` reads, or the one it read for the same `key` (JSON-encoded, so no two keys
   * meet) while nothing has been written since. The stamp is taken before the read.
   */
  async #remembered(
    key: readonly unknown[],
    load: () => Promise<{ items: VisibleRepo[]; total: number }>,
  ): Promise<VisiblePage> {
    const stamp = this.#deps.changes?.stamp();
    return this.#pages.read(JSON.stringify(key), stamp, async () => sharedPage(await load()));
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
  async listForMember(user: User, page: Page): Promise<VisiblePage> {
    const scope = this.#deps.access.scopeOf(user);
    return this.#remembered(['member', scope.kind, user.id, page], async () => {
      const { items, total } = await this.#deps.store.listForMember(user.id, page);
      return { items: await this.#deps.access.accessOfMany(user, items), total };
    });
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
  ): Promise<VisiblePage> {
    const scope = this.#deps.access.scopeOf(viewer).kind;
    const key = ['owner', scope, viewer?.id, page, ownerHandle, kind];
    return this.#remembered(key, async () => {
      const owner = await this.#deps.users.getAccount(ownerHandle);
      if ((kind && owner.kind !== kind) || !(await this.#deps.access.seesOwner(viewer, owner)))
        throw new NotFound(
          `${kind === 'org' ? 'org' : 'user'} does not exist [name: ${ownerHandle}]`,
        );
      return this.#readVisible(viewer, page, { ownerId: owner.id });
    });
  }
}
