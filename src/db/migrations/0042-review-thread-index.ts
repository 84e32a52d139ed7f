import { type Kysely, sql } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Indexes that let a pull's page read the threads it shows without a pass over all of the
 * pull's comments: the comments of given reviews of a pull (or of none), and the comments on
 * one line of one side of one file. The line is the one a thread is on, as
 * `ReviewCommentStore` computes it; an expression index is used only by a query that spells
 * the same expression, so the two must change together.
 */
export const reviewThreadIndexMigration: Migration = {
  name: '0042-review-thread-index',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('review_comments_pull_review')
      .on('review_comments')
      .columns(['pull_id', 'review_id'])
      .execute();
    await sql`create index review_comments_thread on review_comments (pull_id, path, side,
      (coalesce(case when side = 'RIGHT' then line else old_line end, 0)))`.execute(db);
  },
};
