import { type ExpressionBuilder, type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { uniqueOrConflict } from '../../db/errors.ts';
import { prepared } from '../../db/prepared.ts';
import type { RepositoriesTable, Tables } from '../../db/tables.ts';
import { likePattern } from '../../lib/like.ts';
import type { Page } from '../paging.ts';
import type { Repository } from './repo.types.ts';

const OWNER_COLUMNS = [
  'owner.handle as owner_handle',
  'owner.kind as owner_kind',
  'owner.email as owner_email',
  'owner.full_name as owner_full_name',
  'owner.description as owner_description',
  'owner.created_at as owner_created_at',
  'owner.updated_at as owner_updated_at',
  'owner.visibility as owner_visibility',
] as const;

/** A subquery selecting owner ids, such as the organisations a person belongs to. */
type OwnerIds = SelectQueryBuilder<Tables, 'org_members', { org_id: string }>;

type RepoRow = Selectable<RepositoriesTable> & {
  owner_handle: string;
  owner_kind: 'user' | 'org';
  owner_email: string | null;
  owner_full_name: string;
  owner_description: string;
  owner_created_at: number;
  owner_updated_at: number;
  owner_visibility: 'public' | 'private';
};

function toRepository(row: RepoRow): Repository {
  return {
    id: row.id,
    owner: {
      id: row.owner_id,
      handle: row.owner_handle,
      kind: row.owner_kind,
      email: row.owner_email,
      fullName: row.owner_full_name,
      description: row.owner_description,
      createdAt: new Date(row.owner_created_at),
      updatedAt: new Date(row.owner_updated_at),
      ...(row.owner_visibility === 'private' ? { private: true as const } : {}),
    },
    name: row.name,
    description: row.description,
    private: Boolean(row.private),
    parentId: row.parent_id,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** Who is asking, for visibility filters: anonymous callers see public repositories only. */
export type VisibilityScope =
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'admin' };

type RepoEb = ExpressionBuilder<Tables & { repositories: RepositoriesTable }, 'repositories'>;

/** Ids of the private organisations: their repositories exist for members and admins only. */
function privateOwners(eb: RepoEb) {
  return eb.selectFrom('users').select('users.id').where('users.visibility', '=', 'private');
}

/**
 * The access rule of repo.policy.ts (`accessLevel`, `ownerVisible`) in SQL: a repository is
 * listed when it is public and its owner is not a private organisation, or the caller owns it,
 * collaborates on it, or belongs to its organisation. Admins see everything.
 */
function visibleTo(scope: VisibilityScope) {
  return (eb: RepoEb) => {
    if (scope.kind === 'admin') return eb.val(true);
    const isPublic = eb.and([
      eb('repositories.private', '=', false),
      eb('repositories.owner_id', 'not in', privateOwners(eb)),
    ]);
    if (scope.kind === 'anonymous') return isPublic;
    return eb.or([
      isPublic,
      eb('repositories.owner_id', '=', scope.userId),
      eb(
        'repositories.id',
        'in',
        eb.selectFrom('collaborators').select('repo_id').where('user_id', '=', scope.userId),
      ),
      eb(
        'repositories.owner_id',
        'in',
        eb.selectFrom('org_members').select('org_id').where('user_id', '=', scope.userId),
      ),
    ]);
  };
}

/** Wider than both the handle and the repository name rules: a cheap first filter for lookups. */
/** Repositories joined to their owners: what every list of repositories reads from. */
function listedRepositories(db: Db) {
  return db
    .selectFrom('users as owner')
    .crossJoin('repositories')
    .whereRef('repositories.owner_id', '=', 'owner.id');
}

/** One page of `rows`, in the order every list shows them: by owner, then by name. */
async function readPage(
  rows: ReturnType<typeof listedRepositories>,
  page: Page,
): Promise<Repository[]> {
  const found = await rows
    .selectAll('repositories')
    .select(OWNER_COLUMNS)
    .orderBy('owner.handle_lower')
    .orderBy('repositories.name_lower')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return found.map((row) => toRepository(row as RepoRow));
}

const COULD_BE_NAME = /^[A-Za-z0-9._-]{1,100}$/;

/** Queries over repositories (collaborators and protected branches have stores of their own). */
export class RepoStore {
  readonly #db: Db;
  // Every request on a repository starts with one of these two lookups.
  readonly #byName;
  readonly #byId;

  constructor(db: Db) {
    this.#db = db;
    this.#byName = prepared(db, (p: { owner: string; name: string }) =>
      this.#select()
        .where('owner.handle_lower', '=', p.owner)
        .where('repositories.name_lower', '=', p.name),
    );
    this.#byId = prepared(db, (p: { id: string }) =>
      this.#select().where('repositories.id', '=', p.id),
    );
  }

  #select() {
    return this.#db
      .selectFrom('repositories')
      .innerJoin('users as owner', 'owner.id', 'repositories.owner_id')
      .selectAll('repositories')
      .select(OWNER_COLUMNS);
  }

  /** Inserts a new repository (its pull counter at zero); a taken name is a `Conflict`. */
  async insert(repo: Repository): Promise<void> {
    const row: RepositoriesTable = {
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
    };
    await uniqueOrConflict(
      () => this.#db.insertInto('repositories').values(row).execute(),
      'The repository with the same name already exists.',
    );
  }

  async findByName(ownerHandle: string, name: string): Promise<Repository | undefined> {
    // Anything no handle or repository name could be (NUL, slashes, a megabyte) is absent
    // without asking the database, which may refuse such a value outright (PostgreSQL and NUL).
    if (!COULD_BE_NAME.test(ownerHandle) || !COULD_BE_NAME.test(name)) return undefined;
    const [row] = await this.#byName({
      owner: ownerHandle.toLowerCase(),
      name: name.toLowerCase(),
    });
    return row && toRepository(row as RepoRow);
  }

  async findById(id: string): Promise<Repository | undefined> {
    const [row] = await this.#byId({ id });
    return row && toRepository(row as RepoRow);
  }

  async findManyByIds(ids: readonly string[]): Promise<Map<string, Repository>> {
    if (ids.length === 0) return new Map();
    const rows = await this.#select()
      .where('repositories.id', 'in', [...new Set(ids)])
      .execute();
    return new Map(rows.map((row) => [row.id, toRepository(row as RepoRow)]));
  }

  /**
   * Owners in handle order, each owner's repositories in name order, both read from indexes, so
   * a page costs the rows it shows rather than a sort of every visible repository. `CROSS JOIN`
   * keeps SQLite on that loop order; PostgreSQL plans it as the inner join it is.
   */
  #listed() {
    return listedRepositories(this.#db);
  }

  /**
   * How many repositories the owners own, from the counts triggers keep (migration 0007): one
   * owner by id, the owners a subquery selects, or all of them. Counting the repositories
   * themselves took time in proportion to their number.
   */
  async #ownedBy(owners: string | OwnerIds | undefined): Promise<number> {
    let query = this.#db.selectFrom('owner_repo_counts');
    if (typeof owners === 'string') query = query.where('owner_id', '=', owners);
    else if (owners) query = query.where('owner_id', 'in', owners);
    return this.#count(
      query.select((eb) =>
        eb.fn.coalesce(eb.fn.sum<number>('repositories'), eb.lit(0)).as('total'),
      ),
    );
  }

  async #count(query: { executeTakeFirstOrThrow(): Promise<{ total: unknown }> }): Promise<number> {
    return Number((await query.executeTakeFirstOrThrow()).total);
  }

  /** Repositories the scope may see, optionally of one owner, alphabetical by owner and name. */
  async listVisible(
    scope: VisibilityScope,
    page: Page,
    filter: { ownerId?: string; query?: string } = {},
  ): Promise<{ items: Repository[]; total: number }> {
    let rows = this.#listed().where((eb) => visibleTo(scope)(eb as unknown as RepoEb));
    if (filter.ownerId) rows = rows.where('repositories.owner_id', '=', filter.ownerId);
    if (filter.query) {
      rows = rows.where(
        sql<boolean>`repositories.name_lower like ${likePattern(filter.query)} escape '\\'`,
      );
    }
    const [items, total] = await Promise.all([
      readPage(rows, page),
      this.#countVisible(scope, filter),
    ]);
    return { items, total };
  }

  async #countVisible(
    scope: VisibilityScope,
    filter: { ownerId?: string; query?: string },
  ): Promise<number> {
    const countAll = (eb: ExpressionBuilder<Tables, 'repositories'>) =>
      eb.fn.countAll<number>().as('total');
    if (filter.ownerId || filter.query) {
      let query = this.#db.selectFrom('repositories').where(visibleTo(scope));
      if (filter.ownerId) query = query.where('repositories.owner_id', '=', filter.ownerId);
      if (filter.query) {
        query = query.where(
          sql<boolean>`repositories.name_lower like ${likePattern(filter.query)} escape '\\'`,
        );
      }
      return this.#count(query.select(countAll));
    }
    // Every repository less the hidden ones the scope may not see: the total is a sum over
    // owners (see #ownedBy) and the rest reads private repositories and those of private
    // organisations only, so the count does not grow with the public ones.
    const all = this.#ownedBy(undefined);
    if (scope.kind === 'admin') return all;
    let hidden = this.#db
      .selectFrom('repositories')
      .where((eb) =>
        eb.or([
          eb('repositories.private', '=', true),
          eb('repositories.owner_id', 'in', privateOwners(eb)),
        ]),
      );
    if (scope.kind === 'user') {
      hidden = hidden.where((eb) => eb.not(visibleTo(scope)(eb)));
    }
    const [total, invisible] = await Promise.all([all, this.#count(hidden.select(countAll))]);
    return total - invisible;
  }

  /** What `/user/repos` lists: owned, collaborated on, or owned by one of the person's orgs. */
  async listForMember(userId: string, page: Page): Promise<{ items: Repository[]; total: number }> {
    const orgs = () =>
      this.#db.selectFrom('org_members').select('org_id').where('user_id', '=', userId);
    const rows = this.#listed().where((eb) =>
      eb.or([
        eb('repositories.owner_id', '=', userId),
        eb(
          'repositories.id',
          'in',
          eb.selectFrom('collaborators').select('repo_id').where('user_id', '=', userId),
        ),
        eb('repositories.owner_id', 'in', orgs()),
      ]),
    );
    // Three disjoint parts: owned and owned by one of the person's organisations, read from the
    // owners' counts, and collaborations on anything else, counted along an index.
    const [items, owned, viaOrgs, collaborations] = await Promise.all([
      readPage(rows, page),
      this.#ownedBy(userId),
      this.#ownedBy(orgs()),
      this.#count(
        this.#db
          .selectFrom('collaborators')
          .innerJoin('repositories', 'repositories.id', 'collaborators.repo_id')
          .where('collaborators.user_id', '=', userId)
          .where('repositories.owner_id', '<>', userId)
          .where('repositories.owner_id', 'not in', orgs())
          .select((eb) => eb.fn.countAll<number>().as('total')),
      ),
    ]);
    return {
      items,
      total: owned + viaOrgs + collaborations,
    };
  }

  /**
   * Every repository's owner and name as its directory spells them (lower case), and whether it
   * is private: what checks of the data directory compare the disk against.
   */
  async listLocations(): Promise<
    Array<{ readonly owner: string; readonly name: string; readonly private: boolean }>
  > {
    const rows = await this.#db
      .selectFrom('repositories')
      .innerJoin('users', 'users.id', 'repositories.owner_id')
      .select([
        'users.handle_lower as owner',
        'repositories.name_lower as name',
        'repositories.private',
      ])
      .execute();
    return rows.map((row) => ({
      owner: row.owner,
      name: row.name,
      private: row.private === true || row.private === 1,
    }));
  }

  async listForks(parentId: string): Promise<Repository[]> {
    const rows = await this.#select().where('repositories.parent_id', '=', parentId).execute();
    return rows.map((row) => toRepository(row as RepoRow));
  }

  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom('repositories').where('id', '=', id).execute();
  }

  async update(id: string, change: { description?: string; private?: boolean }): Promise<void> {
    await this.#db
      .updateTable('repositories')
      .set({ ...change, updated_at: Date.now() })
      .where('id', '=', id)
      .execute();
  }

  async touch(id: string): Promise<void> {
    await this.#db
      .updateTable('repositories')
      .set({ updated_at: Date.now() })
      .where('id', '=', id)
      .execute();
  }
}
