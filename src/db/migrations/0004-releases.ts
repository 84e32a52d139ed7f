import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Releases: one per tag and repository, removed with their repository. The author is kept as a
 * nullable reference so that a release outlives the account that published it (shown as a ghost).
 */
export const releasesMigration: Migration = {
  name: '0004-releases',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('releases')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('tag_name', 'text', (c) => c.notNull())
      .addColumn('target_commitish', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('prerelease', 'boolean', (c) => c.notNull())
      .addColumn('author_id', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('releases_repo_tag', ['repo_id', 'tag_name'])
      .execute();
    // Lists are newest first per repository; `latest` filters on prerelease within that order.
    await db.schema
      .createIndex('releases_repo_created')
      .on('releases')
      .columns(['repo_id', 'created_at'])
      .execute();
  },
};
