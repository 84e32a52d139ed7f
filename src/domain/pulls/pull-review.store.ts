import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { PullReviewsTable } from '../../db/tables.ts';
import { foldId } from '../../lib/ids.ts';
import type { PullReview, ReviewVerdict } from './pull-review.types.ts';

function toReview(row: Selectable<PullReviewsTable>): PullReview {
  return {
    id: row.id,
    pullId: row.pull_id,
    reviewerId: row.reviewer_id,
    state: row.state,
    body: row.body,
    commitId: row.commit_id,
    official: Boolean(row.official),
    dismissed: Boolean(row.dismissed),
    dismissedById: row.dismissed_by_id,
    dismissMessage: row.dismiss_message,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    submittedAt: row.submitted_at === null ? null : new Date(Number(row.submitted_at)),
  };
}

/** The `pull_reviews` rows. A review named by its wire id is found among its pull's rows. */
export class PullReviewStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async insert(review: PullReview & { readonly repoId: string }): Promise<void> {
    await this.#db
      .insertInto('pull_reviews')
      .values({
        id: review.id,
        pull_id: review.pullId,
        repo_id: review.repoId,
        reviewer_id: review.reviewerId,
        state: review.state,
        body: review.body,
        commit_id: review.commitId,
        official: review.official,
        dismissed: review.dismissed,
        dismissed_by_id: review.dismissedById,
        dismiss_message: review.dismissMessage,
        created_at: review.createdAt.getTime(),
        updated_at: review.updatedAt.getTime(),
        submitted_at: review.submittedAt?.getTime() ?? null,
      })
      .execute();
  }

  /** The pull's reviews, oldest first: every submitted one, and `viewerId`'s pending one. */
  async listByPull(pullId: string, viewerId: string | undefined): Promise<PullReview[]> {
    const rows = await this.#db
      .selectFrom('pull_reviews')
      .selectAll()
      .where('pull_id', '=', pullId)
      .where((eb) => eb.or([eb('state', '!=', 'PENDING'), eb('reviewer_id', '=', viewerId ?? '')]))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toReview);
  }

  /** The pull's submitted reviews among `ids`, oldest first (as `listByPull` orders them). */
  async listSubmittedByIds(pullId: string, ids: readonly string[]): Promise<PullReview[]> {
    if (ids.length === 0) return [];
    const rows = await this.#db
      .selectFrom('pull_reviews')
      .selectAll()
      .where('pull_id', '=', pullId)
      .where('id', 'in', ids)
      .where('state', '!=', 'PENDING')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toReview);
  }

  /** The pending review of `reviewerId` on the pull, if there is one. */
  async findPending(pullId: string, reviewerId: string): Promise<PullReview | undefined> {
    const row = await this.#db
      .selectFrom('pull_reviews')
      .selectAll()
      .where('pull_id', '=', pullId)
      .where('reviewer_id', '=', reviewerId)
      .where('state', '=', 'PENDING')
      .executeTakeFirst();
    return row && toReview(row);
  }

  /** The review of the pull whose wire id is `wireId`, pending ones included. */
  async findByWireId(pullId: string, wireId: number): Promise<PullReview | undefined> {
    const ids = await this.#db
      .selectFrom('pull_reviews')
      .select('id')
      .where('pull_id', '=', pullId)
      .execute();
    const match = ids.find((row) => foldId(row.id) === wireId);
    if (!match) return undefined;
    const row = await this.#db
      .selectFrom('pull_reviews')
      .selectAll()
      .where('id', '=', match.id)
      .executeTakeFirst();
    return row && toReview(row);
  }

  /** Gives a pending review its verdict; answers whether it was still pending. */
  async submit(
    id: string,
    change: { state: ReviewVerdict; body: string; commitId: string; official: boolean; at: number },
  ): Promise<boolean> {
    const result = await this.#db
      .updateTable('pull_reviews')
      .set({
        state: change.state,
        body: change.body,
        commit_id: change.commitId,
        official: change.official,
        submitted_at: change.at,
        updated_at: change.at,
      })
      .where('id', '=', id)
      .where('state', '=', 'PENDING')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async updateBody(id: string, body: string, at: number): Promise<void> {
    await this.#db
      .updateTable('pull_reviews')
      .set({ body, updated_at: at })
      .where('id', '=', id)
      .execute();
  }

  /** Marks reviews dismissed (or not), by whom and why. */
  async setDismissed(
    ids: readonly string[],
    dismissal: { dismissed: boolean; byId: string | null; message: string | null; at: number },
  ): Promise<void> {
    if (ids.length === 0) return;
    await this.#db
      .updateTable('pull_reviews')
      .set({
        dismissed: dismissal.dismissed,
        dismissed_by_id: dismissal.byId,
        dismiss_message: dismissal.message,
        updated_at: dismissal.at,
      })
      .where('id', 'in', ids)
      .execute();
  }

  /** Deletes a review; its line comments go with it. */
  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom('review_comments').where('review_id', '=', id).execute();
    await this.#db.deleteFrom('pull_reviews').where('id', '=', id).execute();
  }

  /** How many line comments each of the reviews carries. */
  async commentCounts(reviewIds: readonly string[]): Promise<Map<string, number>> {
    if (reviewIds.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('review_comments')
      .select((eb) => ['review_id', eb.fn.countAll<number | string | bigint>().as('count')])
      .where('review_id', 'in', reviewIds)
      .groupBy('review_id')
      .execute();
    return new Map(rows.map((row) => [row.review_id ?? '', Number(row.count)]));
  }
}
