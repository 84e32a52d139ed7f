import { type Kysely, sql } from 'kysely';
import type { Migration } from '../migration.ts';

export const pullsMigration: Migration = {
  name: '0005-pulls',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('pull_requests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('number', 'bigint', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('merged', 'boolean', (c) => c.notNull())
      .addColumn('merged_at', 'bigint')
      .addColumn('merge_commit_sha', 'text')
      .addColumn('merged_by_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('author_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('assignee_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('head_repo_id', 'text', (c) =>
        c.references('repositories.id').onDelete('set null'),
      )
      .addColumn('head_branch', 'text', (c) => c.notNull())
      .addColumn('head_sha', 'text', (c) => c.notNull())
      .addColumn('base_branch', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('closed_at', 'bigint')
      .addUniqueConstraint('pull_requests_repo_number', ['repo_id', 'number'])
      .execute();
    await db.schema
      .createIndex('pull_requests_repo_state_updated')
      .on('pull_requests')
      .columns(['repo_id', 'state', 'updated_at'])
      .execute();
    await db.schema
      .createIndex('pull_requests_head')
      .on('pull_requests')
      .columns(['head_repo_id', 'head_branch'])
      .execute();
    // At most one open pull per head and base, enforced by the database so that two replicas
    // racing to open the same pull cannot both succeed.
    await sql`create unique index pull_requests_one_open on pull_requests (repo_id, head_repo_id, head_branch, base_branch) where state = 'open'`.execute(
      db,
    );

    await db.schema
      .createTable('review_comments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('pull_id', 'text', (c) =>
        c.notNull().references('pull_requests.id').onDelete('cascade'),
      )
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('author_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('line', 'bigint')
      .addColumn('old_line', 'bigint')
      .addColumn('side', 'text', (c) => c.notNull())
      .addColumn('commit_id', 'text', (c) => c.notNull())
      .addColumn('original_commit_id', 'text', (c) => c.notNull())
      .addColumn('diff_hunk', 'text', (c) => c.notNull())
      .addColumn('in_reply_to_id', 'text', (c) =>
        c.references('review_comments.id').onDelete('set null'),
      )
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('review_comments_pull')
      .on('review_comments')
      .columns(['pull_id', 'created_at'])
      .execute();
    await db.schema
      .createIndex('review_comments_repo')
      .on('review_comments')
      .column('repo_id')
      .execute();
  },
};
