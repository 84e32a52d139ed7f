import type { Db } from '../../db/database.ts';
import { uniqueOrConflict } from '../../db/errors.ts';
import { KeptTexts } from '../../db/kept-texts.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { contentHash } from '../../lib/content-hash.ts';
import type { Page } from '../paging.ts';
import type { Pull, PullSort, PullStateFilter } from './pull.types.ts';
import {
  type NewPull,
  newPullRow,
  PULL_COLUMNS,
  PULL_ORDERS,
  type PullFieldUpdate,
  type PullRow,
  toPull,
} from './pull-rows.ts';

export type { NewPull, PullFieldUpdate };

/** Characters of pull request bodies kept in memory (see `KeptTexts`). */
const KEPT_BODIES_CHARS = 4 * 1024 * 1024;

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
    const row = newPullRow(pull);
    return uniqueOrConflict(
      () =>
        this.#db.transaction().execute(async (trx) => {
          const { pull_counter } = await trx
            .updateTable('repositories')
            .set((eb) => ({ pull_counter: eb('pull_counter', '+', 1) }))
            .where('id', '=', row.repo_id)
            .returning('pull_counter')
            .executeTakeFirstOrThrow();
          const numbered = { ...row, number: Number(pull_counter) };
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
    if (filter.sort === 'mostcomment' || filter.sort === 'leastcomment') {
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
    } else {
      for (const [column, direction] of PULL_ORDERS[filter.sort]) {
        query = query.orderBy(column, direction);
      }
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
  /**
   * The line comments of each pull that `viewerId` may see: a pending review's comments are
   * its reviewer's alone (as review-comment.store.ts lists them), so nobody else's count them.
   */
  async countReviewComments(
    pullIds: readonly string[],
    viewerId?: string,
  ): Promise<Map<string, number>> {
    if (pullIds.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('review_comments')
      .leftJoin('pull_reviews', 'pull_reviews.id', 'review_comments.review_id')
      .select(['review_comments.pull_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('review_comments.pull_id', 'in', [...new Set(pullIds)])
      .where((eb) =>
        eb.or([
          eb('review_comments.review_id', 'is', null),
          eb('pull_reviews.state', '!=', 'PENDING'),
          eb('pull_reviews.reviewer_id', '=', viewerId ?? ''),
        ]),
      )
      .groupBy('review_comments.pull_id')
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
