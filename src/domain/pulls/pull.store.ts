import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { uniqueOrConflict } from '../../db/errors.ts';
import { KeptTexts } from '../../db/kept-texts.ts';
import type { PullRequestsTable } from '../../db/tables.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { contentHash } from '../../lib/content-hash.ts';
import type { Page } from '../paging.ts';
import type { Pull, PullSort, PullStateFilter } from './pull.types.ts';

/** Every column but the body, which `KeptTexts` reads only when it does not hold it. */
const PULL_COLUMNS = [
  'pull_requests.id',
  'pull_requests.repo_id',
  'pull_requests.number',
  'pull_requests.title',
  'pull_requests.body_hash',
  'pull_requests.state',
  'pull_requests.merged',
  'pull_requests.merged_at',
  'pull_requests.merge_commit_sha',
  'pull_requests.merged_by_id',
  'pull_requests.author_id',
  'pull_requests.assignee_id',
  'pull_requests.head_repo_id',
  'pull_requests.head_branch',
  'pull_requests.head_sha',
  'pull_requests.base_branch',
  'pull_requests.created_at',
  'pull_requests.updated_at',
  'pull_requests.closed_at',
] as const;

/** Characters of pull request bodies kept in memory (see `KeptTexts`). */
const KEPT_BODIES_CHARS = 4 * 1024 * 1024;

type PullRow = Omit<Selectable<PullRequestsTable>, 'body'>;

function toPull(row: PullRow, body: string): Pull {
  const date = (value: number | null) => (value === null ? null : new Date(value));
  return {
    id: row.id,
    repoId: row.repo_id,
    number: Number(row.number),
    title: row.title,
    body,
    state: row.state,
    merged: Boolean(row.merged),
    mergedAt: date(row.merged_at),
    mergeCommitSha: row.merge_commit_sha,
    mergedById: row.merged_by_id,
    authorId: row.author_id,
    assigneeId: row.assignee_id,
    headRepoId: row.head_repo_id,
    headBranch: row.head_branch,
    headSha: row.head_sha,
    baseBranch: row.base_branch,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    closedAt: date(row.closed_at),
  };
}

/** A pull about to be opened: the store gives it its number, open and unmerged. */
export type NewPull = {
  readonly id: string;
  readonly repoId: string;
  readonly title: string;
  readonly body: string;
  readonly authorId: string;
  readonly headRepoId: string | null;
  readonly headBranch: string;
  readonly headSha: string;
  readonly baseBranch: string;
  /** Epoch milliseconds; also its first update time. */
  readonly createdAt: number;
};

/** What an edit may change; `closedAt` null reopens. */
export type PullFieldUpdate = {
  title?: string;
  body?: string;
  state?: Pull['state'];
  closedAt?: number | null;
  headSha?: string;
  assigneeId?: string | null;
};

const DUPLICATE = 'pull request already exists for these targets';

/** Queries over pull requests. */
export class PullStore {
  readonly #db: Db;
  readonly #bodies = new KeptTexts(KEPT_BODIES_CHARS);

  /** Declares its kept texts to `caches` (the composition root's registry) when given. */
  constructor(db: Db, caches?: CacheRegistry) {
    this.#db = db;
    this.#bodies.declareTo(caches, 'pull_bodies');
  }

  #select() {
    return this.#db.selectFrom('pull_requests').select(PULL_COLUMNS);
  }

  /** The pulls of the rows, their bodies from memory or read. */
  async #withBodies(rows: readonly PullRow[]): Promise<Pull[]> {
    const bodies = await this.#bodies.of(
      rows.map((row) => ({ id: row.id, hash: row.body_hash })),
      (ids) =>
        this.#db
          .selectFrom('pull_requests')
          .select(['id', 'body as text'])
          .where('id', 'in', ids)
          .execute(),
    );
    return rows.map((row, index) => toPull(row, bodies[index] ?? ''));
  }

  async #one(row: PullRow | undefined): Promise<Pull | undefined> {
    return row && (await this.#withBodies([row]))[0];
  }

  /**
   * Inserts a pull with the repository's next number. The counter is bumped by the first
   * statement of the transaction, which takes the row's write lock on both engines, so
   * concurrent creates — across processes too — queue there and never share or skip a number;
   * a failed insert rolls the counter back.
   */
  async insertNumbered(pull: NewPull): Promise<Pull> {
    const row: Omit<PullRequestsTable, 'number'> = {
      id: pull.id,
      repo_id: pull.repoId,
      title: pull.title,
      body: pull.body,
      body_hash: contentHash(pull.body),
      state: 'open',
      merged: false,
      merged_at: null,
      merge_commit_sha: null,
      merged_by_id: null,
      author_id: pull.authorId,
      assignee_id: null,
      head_repo_id: pull.headRepoId,
      head_branch: pull.headBranch,
      head_sha: pull.headSha,
      base_branch: pull.baseBranch,
      created_at: pull.createdAt,
      updated_at: pull.createdAt,
      closed_at: null,
    };
    return uniqueOrConflict(
      () =>
        this.#db.transaction().execute(async (trx) => {
          const { pull_counter } = await trx
            .updateTable('repositories')
            .set((eb) => ({ pull_counter: eb('pull_counter', '+', 1) }))
            .where('id', '=', row.repo_id)
            .returning('pull_counter')
            .executeTakeFirstOrThrow();
          const numbered: PullRequestsTable = { ...row, number: Number(pull_counter) };
          await trx.insertInto('pull_requests').values(numbered).execute();
          return toPull(numbered, numbered.body);
        }),
      DUPLICATE,
    );
  }

  async findByNumber(repoId: string, number: number): Promise<Pull | undefined> {
    const row = await this.#select()
      .where('repo_id', '=', repoId)
      .where('number', '=', number)
      .executeTakeFirst();
    return this.#one(row);
  }

  async findById(id: string): Promise<Pull | undefined> {
    const row = await this.#select().where('id', '=', id).executeTakeFirst();
    return this.#one(row);
  }

  async list(
    repoId: string,
    filter: { state: PullStateFilter; sort: PullSort; authorId?: string },
    page: Page,
  ): Promise<{ items: Pull[]; total: number }> {
    let base = this.#db.selectFrom('pull_requests').where('pull_requests.repo_id', '=', repoId);
    if (filter.state !== 'all') base = base.where('pull_requests.state', '=', filter.state);
    if (filter.authorId) base = base.where('pull_requests.author_id', '=', filter.authorId);
    let query = base.select(PULL_COLUMNS);
    switch (filter.sort) {
      case 'oldest':
        query = query
          .orderBy('pull_requests.created_at', 'asc')
          .orderBy('pull_requests.number', 'asc');
        break;
      case 'recentupdate':
        query = query
          .orderBy('pull_requests.updated_at', 'desc')
          .orderBy('pull_requests.number', 'desc');
        break;
      case 'leastupdate':
        query = query
          .orderBy('pull_requests.updated_at', 'asc')
          .orderBy('pull_requests.number', 'asc');
        break;
      case 'mostcomment':
      case 'leastcomment': {
        const direction = filter.sort === 'mostcomment' ? 'desc' : 'asc';
        query = query
          .orderBy(
            (eb) =>
              eb
                .selectFrom('review_comments')
                .select((inner) => inner.fn.countAll().as('n'))
                .whereRef('review_comments.pull_id', '=', 'pull_requests.id'),
            direction,
          )
          .orderBy('pull_requests.number', 'desc');
        break;
      }
      default:
        query = query
          .orderBy('pull_requests.created_at', 'desc')
          .orderBy('pull_requests.number', 'desc');
    }
    const [rows, count] = await Promise.all([
      query.limit(page.limit).offset(page.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: await this.#withBodies(rows), total: Number(count.total) };
  }

  /** The person's most recently updated pulls, in any repository. */
  async listRecentByAuthor(authorId: string, limit: number): Promise<Pull[]> {
    const rows = await this.#select()
      .where('author_id', '=', authorId)
      .orderBy('updated_at', 'desc')
      .limit(limit)
      .execute();
    return this.#withBodies(rows);
  }

  /** Open pulls whose head is `branch` of `headRepoId`, in any repository. */
  async listOpenByHead(headRepoId: string, branch: string): Promise<Pull[]> {
    const rows = await this.#select()
      .where('head_repo_id', '=', headRepoId)
      .where('head_branch', '=', branch)
      .where('state', '=', 'open')
      .execute();
    return this.#withBodies(rows);
  }

  /** Review comment counts of the given pulls (absent = none). */
  async countReviewComments(pullIds: readonly string[]): Promise<Map<string, number>> {
    if (pullIds.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('review_comments')
      .select(['pull_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('pull_id', 'in', [...new Set(pullIds)])
      .groupBy('pull_id')
      .execute();
    return new Map(rows.map((row) => [row.pull_id, Number(row.n)]));
  }

  async countOpen(repoId: string): Promise<number> {
    const row = await this.#db
      .selectFrom('pull_requests')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('repo_id', '=', repoId)
      .where('state', '=', 'open')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async update(id: string, change: PullFieldUpdate): Promise<void> {
    const columns = {
      ...(change.title !== undefined && { title: change.title }),
      ...(change.body !== undefined && { body: change.body, body_hash: contentHash(change.body) }),
      ...(change.state !== undefined && { state: change.state }),
      ...(change.closedAt !== undefined && { closed_at: change.closedAt }),
      ...(change.headSha !== undefined && { head_sha: change.headSha }),
      ...(change.assigneeId !== undefined && { assignee_id: change.assigneeId }),
    };
    await uniqueOrConflict(
      () =>
        this.#db
          .updateTable('pull_requests')
          .set({ ...columns, updated_at: Date.now() })
          .where('id', '=', id)
          .execute(),
      DUPLICATE,
    );
  }

  /**
   * Moves an open pull's recorded head from `from` to `to` only if it is still `from`: true for
   * the one caller that moved it (see `PullService.onBranchPushed`).
   */
  async advanceHead(id: string, from: string, to: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('pull_requests')
      .set({ head_sha: to, updated_at: Date.now() })
      .where('id', '=', id)
      .where('state', '=', 'open')
      .where('head_sha', '=', from)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Records a merge only if the pull is still open and unmerged; false when someone else closed
   * or merged it first.
   */
  async markMerged(
    id: string,
    merge: { sha: string; headSha: string; byId: string; at: number },
  ): Promise<boolean> {
    const result = await this.#db
      .updateTable('pull_requests')
      .set({
        state: 'closed',
        merged: true,
        merged_at: merge.at,
        merge_commit_sha: merge.sha,
        merged_by_id: merge.byId,
        head_sha: merge.headSha,
        closed_at: merge.at,
        updated_at: merge.at,
      })
      .where('id', '=', id)
      .where('state', '=', 'open')
      .where('merged', '=', false)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
