import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * A review thread (the comments on one line of one file of a pull) can be marked resolved. The
 * mark lives on the thread's first comment: `resolved_by_id` names who resolved it and
 * `resolved_at` when; both null while the thread is open.
 */
export const reviewThreadResolutionMigration: Migration = {
  name: '0020-review-thread-resolution',
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('review_comments').addColumn('resolved_by_id', 'text').execute();
    await db.schema.alterTable('review_comments').addColumn('resolved_at', 'bigint').execute();
  },
};
