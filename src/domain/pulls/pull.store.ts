import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { uniqueOrConflict } from '../../db/errors.ts';
import type { PullRequestsTable } from '../../db/tables.ts';
import type { Page } from '../repos/repo.store.ts';
import type { Pull, PullSort, PullStateFilter } from './pull.types.ts';

function toPull(row: Selectable<PullRequestsTable>): Pull {
  const date = (value: number | null) => (value === null ? null : new Date(value));
  return {
    id: row.id,
    repoId: row.repo_id,
    number: Number(row.number),
    title: row.title,
    body: row.body,
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
  readonly headRepoId: string;
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

  constructor(db: Db) {
    this.#db = db;
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
          return toPull(numbered);
        }),
      DUPLICATE,
    );
  }

  async findByNumber(repoId: string, number: number): Promise<Pull | undefined> {
    const row = await this.#db
      .selectFrom('pull_requests')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('number', '=', number)
      .executeTakeFirst();
    return row && toPull(row);
  }

  async findById(id: string): Promise<Pull | undefined> {
    const row = await this.#db
      .selectFrom('pull_requests')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toPull(row);
  }

  async list(
    repoId: string,
    filter: { state: PullStateFilter; sort: PullSort; authorId?: string },
    page: Page,
  ): Promise<{ items: Pull[]; total: number }> {
    let base = this.#db.selectFrom('pull_requests').where('pull_requests.repo_id', '=', repoId);
    if (filter.state !== 'all') base = base.where('pull_requests.state', '=', filter.state);
    if (filter.authorId) base = base.where('pull_requests.author_id', '=', filter.authorId);
    let query = base.selectAll('pull_requests');
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
    return { items: rows.map(toPull), total: Number(count.total) };
  }

  /** The person's most recently updated pulls, in any repository. */
  async listRecentByAuthor(authorId: string, limit: number): Promise<Pull[]> {
    const rows = await this.#db
      .selectFrom('pull_requests')
      .selectAll()
      .where('author_id', '=', authorId)
      .orderBy('updated_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toPull);
  }

  /** Open pulls whose head is `branch` of `headRepoId`, in any repository. */
  async listOpenByHead(headRepoId: string, branch: string): Promise<Pull[]> {
    const rows = await this.#db
      .selectFrom('pull_requests')
      .selectAll()
      .where('head_repo_id', '=', headRepoId)
      .where('head_branch', '=', branch)
      .where('state', '=', 'open')
      .execute();
    return rows.map(toPull);
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
      ...(change.body !== undefined && { body: change.body }),
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
   * Records a merge only if the pull is still open and unmerged; false when someone else closed
   * or merged it first.
   */
  async markMerged(id: string, merge: { sha: string; byId: string; at: number }): Promise<boolean> {
    const result = await this.#db
      .updateTable('pull_requests')
      .set({
        state: 'closed',
        merged: true,
        merged_at: merge.at,
        merge_commit_sha: merge.sha,
        merged_by_id: merge.byId,
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
