import { type Kysely, sql } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Indexes in the order of a pull's timeline, so its page reads the first and latest items of
 * each kind without sorting all of them: submitted reviews by the time they count at (their
 * submission), and timeline entries by time and id. The review index holds submitted reviews
 * only and its expression is the one `PullTimelineStore.endsOf` spells; a query that changes
 * either stops using it. The entry index supersedes `pull_timeline_pull`, its prefix.
 */
export const timelineOrderIndexMigration: Migration = {
  name: '0044-timeline-order-index',
  async up(db: Kysely<unknown>) {
    await sql`create index pull_reviews_timeline on pull_reviews
      (pull_id, (coalesce(submitted_at, created_at)), created_at, id)
      where state <> 'PENDING'`.execute(db);
    await db.schema
      .createIndex('pull_timeline_order')
      .on('pull_timeline')
      .columns(['pull_id', 'created_at', 'id'])
      .execute();
    await db.schema.dropIndex('pull_timeline_pull').execute();
  },
};
