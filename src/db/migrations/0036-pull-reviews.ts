import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Reviews of pull requests with a verdict (`pull_reviews`), the line comments a review carries
 * (`review_comments.review_id`, null for a line comment made alone) and what else happened to a
 * pull, in order, for its timeline (`pull_timeline`: pushes, force pushes, closes, reopens and
 * merges, each with who did it).
 */
export const pullReviewsMigration: Migration = {
  name: '0036-pull-reviews',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('pull_reviews')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('pull_id', 'text', (c) =>
        c.notNull().references('pull_requests.id').onDelete('cascade'),
      )
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('reviewer_id', 'text', (c) =>
        c.notNull().references('users.id').onDelete('cascade'),
      )
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('commit_id', 'text', (c) => c.notNull())
      .addColumn('official', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('dismissed', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('dismissed_by_id', 'text')
      .addColumn('dismiss_message', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('submitted_at', 'bigint')
      .execute();
    await db.schema
      .createIndex('pull_reviews_pull')
      .on('pull_reviews')
      .columns(['pull_id', 'created_at'])
      .execute();
    await db.schema
      .alterTable('review_comments')
      .addColumn('review_id', 'text', (c) => c.references('pull_reviews.id').onDelete('cascade'))
      .execute();
    await db.schema
      .createIndex('review_comments_review')
      .on('review_comments')
      .column('review_id')
      .execute();
    await db.schema
      .createTable('pull_timeline')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('pull_id', 'text', (c) =>
        c.notNull().references('pull_requests.id').onDelete('cascade'),
      )
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('actor_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('old_sha', 'text')
      .addColumn('new_sha', 'text')
      .addColumn('commits', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('note', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('pull_timeline_pull')
      .on('pull_timeline')
      .columns(['pull_id', 'created_at'])
      .execute();
  },
};
