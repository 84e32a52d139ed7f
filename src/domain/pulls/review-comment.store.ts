import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ReviewCommentsTable } from '../../db/tables.ts';
import { foldId } from '../../lib/ids.ts';
import type { ReviewComment } from './review-comment.types.ts';

function toComment(row: Selectable<ReviewCommentsTable>): ReviewComment {
  return {
    id: row.id,
    pullId: row.pull_id,
    authorId: row.author_id,
    body: row.body,
    path: row.path,
    line: row.line === null ? null : Number(row.line),
    oldLine: row.old_line === null ? null : Number(row.old_line),
    side: row.side,
    commitId: row.commit_id,
    originalCommitId: row.original_commit_id,
    diffHunk: row.diff_hunk,
    inReplyToId: row.in_reply_to_id,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    resolvedById: row.resolved_by_id,
    resolvedAt: row.resolved_at === null ? null : new Date(Number(row.resolved_at)),
    reviewId: row.review_id,
  };
}

/** The line a comment's thread is on, on its own side, as `lineOf` (review-threads.ts) reads it. */
function threadLine(table: 'review_comments' | 'shown') {
  const column = (name: string) => sql.ref(`${table}.${name}`);
  return sql<number>`coalesce(case when ${column('side')} = 'RIGHT' then ${column('line')} else ${column('old_line')} end, 0)`;
}

/**
 * Whether `viewerId` may see a comment, over `review_comments` left-joined to its review.
 * Invariant: a comment of a pending review is its reviewer's alone until the review is
 * submitted, however it is reached (a list, a thread, a wire id, a reply).
 */
function visibleTo(viewerId: string | undefined): RawBuilder<boolean> {
  return sql<boolean>`(review_comments.review_id is null or pull_reviews.state <> 'PENDING'
    or pull_reviews.reviewer_id = ${viewerId ?? ''})`;
}

/**
 * The `review_comments` rows. Wire ids are one-way folds of the keys, so a comment named by its
 * wire id is found among the rows of its repository or pull, never looked up by the fold.
 */
export class ReviewCommentStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Stores a new comment (its own first commit is its original one) and returns it. */
  async insert(comment: ReviewComment & { readonly repoId: string }): Promise<ReviewComment> {
    await this.#db
      .insertInto('review_comments')
      .values({
        id: comment.id,
        pull_id: comment.pullId,
        repo_id: comment.repoId,
        author_id: comment.authorId,
        body: comment.body,
        path: comment.path,
        line: comment.line,
        old_line: comment.oldLine,
        side: comment.side,
        commit_id: comment.commitId,
        original_commit_id: comment.originalCommitId,
        diff_hunk: comment.diffHunk,
        in_reply_to_id: comment.inReplyToId,
        created_at: comment.createdAt.getTime(),
        updated_at: comment.updatedAt.getTime(),
        resolved_by_id: comment.resolvedById,
        resolved_at: comment.resolvedAt?.getTime() ?? null,
        review_id: comment.reviewId,
      })
      .execute();
    const { repoId: _repoId, ...stored } = comment;
    return stored;
  }

  /**
   * The pull's comments, oldest first. A comment of a pending review is its reviewer's alone
   * until the review is submitted: it is listed only when `viewerId` is that reviewer.
   */
  async listByPull(pullId: string, viewerId?: string): Promise<ReviewComment[]> {
    const rows = await this.#visibleTo(viewerId)
      .selectAll('review_comments')
      .where('review_comments.pull_id', '=', pullId)
      .orderBy('review_comments.created_at')
      .orderBy('review_comments.id')
      .execute();
    return rows.map(toComment);
  }

  /**
   * The comments `viewerId` may see on the threads that the comments of `reviewIds`, or line
   * comments made on their own, are on (a thread is one line of one side of one file), oldest
   * first: what a page needs to draw those threads whole, without the pull's other comments.
   */
  async listOnThreadsOf(
    pullId: string,
    reviewIds: readonly string[],
    viewerId: string | undefined,
  ): Promise<ReviewComment[]> {
    // The threads shown, then the comments on each: the keys are read by review through
    // `review_comments_pull_review` (a union, since an OR with `is null` would read the pull's
    // every comment), and the comments by their line through `review_comments_thread`, whose
    // expression `threadLine` spells. The cross join keeps SQLite's planner, which has no
    // statistics, from reading the pull's comments and probing the keys instead. So the cost
    // follows the threads shown, not the pull's comments. Written as one template rather than
    // built: composing it through the builder added a good part of running it, on every view.
    const keysOf = (reviews: RawBuilder<unknown>) =>
      sql`select shown.path, shown.side, ${threadLine('shown')} as line
        from review_comments as shown where shown.pull_id = ${pullId} and ${reviews}`;
    const loose = keysOf(sql`shown.review_id is null`);
    const keys =
      reviewIds.length === 0
        ? loose
        : sql`${loose} union all ${keysOf(sql`shown.review_id in (${sql.join(reviewIds)})`)}`;
    const { rows } = await sql<Selectable<ReviewCommentsTable>>`
      select review_comments.* from (select distinct keyed.path, keyed.side, keyed.line
        from (${keys}) as keyed) as thread
      cross join review_comments
      left join pull_reviews on pull_reviews.id = review_comments.review_id
      where review_comments.pull_id = ${pullId}
        and review_comments.path = thread.path and review_comments.side = thread.side
        and ${threadLine('review_comments')} = thread.line
        and ${visibleTo(viewerId)}
      order by review_comments.created_at, review_comments.id`.execute(this.#db);
    return rows.map(toComment);
  }

  /** The comments a review carries, oldest first. */
  async listByReview(reviewId: string): Promise<ReviewComment[]> {
    const rows = await this.#db
      .selectFrom('review_comments')
      .selectAll()
      .where('review_id', '=', reviewId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toComment);
  }

  /**
   * The comment of the pull whose wire id is `wireId`, among those `viewerId` may see: another
   * reviewer's pending comment is not found.
   */
  async findInPullByWireId(
    pullId: string,
    wireId: number,
    viewerId: string | undefined,
  ): Promise<ReviewComment | undefined> {
    const rows = await this.#visibleTo(viewerId)
      .selectAll('review_comments')
      .where('review_comments.pull_id', '=', pullId)
      .execute();
    const row = rows.find((candidate) => foldId(candidate.id) === wireId);
    return row && toComment(row);
  }

  /**
   * The comment of the repository whose wire id is `wireId`, among those `viewerId` may see
   * (another reviewer's pending comment is not found); reads ids first, then one row.
   */
  async findInRepoByWireId(
    repoId: string,
    wireId: number,
    viewerId: string | undefined,
  ): Promise<ReviewComment | undefined> {
    const ids = await this.#visibleTo(viewerId)
      .select('review_comments.id')
      .where('review_comments.repo_id', '=', repoId)
      .execute();
    const match = ids.find((row) => foldId(row.id) === wireId);
    if (!match) return undefined;
    const row = await this.#db
      .selectFrom('review_comments')
      .selectAll()
      .where('id', '=', match.id)
      .executeTakeFirst();
    return row && toComment(row);
  }

  /** The comments `viewerId` may see (see `visibleTo`). */
  #visibleTo(viewerId: string | undefined) {
    return this.#db
      .selectFrom('review_comments')
      .leftJoin('pull_reviews', 'pull_reviews.id', 'review_comments.review_id')
      .where(visibleTo(viewerId));
  }

  async updateBody(id: string, body: string, at: number): Promise<void> {
    await this.#db
      .updateTable('review_comments')
      .set({ body, updated_at: at })
      .where('id', '=', id)
      .execute();
  }

  /** Marks the thread that `id` starts resolved by someone at a time, or open (both null). */
  async setResolution(id: string, by: string | null, at: number | null): Promise<void> {
    await this.#db
      .updateTable('review_comments')
      .set({ resolved_by_id: by, resolved_at: at })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom('review_comments').where('id', '=', id).execute();
  }
}
