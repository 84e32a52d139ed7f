import type { Kysely } from 'kysely';
import type { Dialect, Migration } from '../migration.ts';

/**
 * The CI cache (`actions/cache`): one row per entry of a repository, in the scope (a ref) of the
 * run that wrote it. An entry is `reserved` while its archive uploads and `ready` once committed;
 * its bytes live in files under the data directory, named by the row's id, and its download
 * links are signed with its own `link_secret`. Keys are compared
 * lower-cased, so the lower-cased key is what the unique index holds: one entry per key and
 * version in a scope, which is also what refuses a second concurrent reservation.
 */
export const ciCachesMigration: Migration = {
  name: '0030-ci-caches',
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const time = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable('ci_caches')
      .ifNotExists()
      // Ids name files and appear in signed URLs: never reused.
      .addColumn('id', dialect === 'postgres' ? 'bigint' : 'integer', (c) =>
        dialect === 'postgres'
          ? c.primaryKey().generatedAlwaysAsIdentity()
          : c.primaryKey().autoIncrement(),
      )
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('cache_key', 'text', (c) => c.notNull())
      .addColumn('key_lower', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
      // Signs the entry's download links: readable by any replica, useless for any other entry.
      .addColumn('link_secret', 'text', (c) => c.notNull())
      .addColumn('created_at', time, (c) => c.notNull())
      .addColumn('updated_at', time, (c) => c.notNull())
      .addColumn('last_accessed_at', time, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('ci_caches_entry')
      .ifNotExists()
      .unique()
      .on('ci_caches')
      .columns(['repo_id', 'scope', 'key_lower', 'version'])
      .execute();
    await db.schema
      .createIndex('ci_caches_by_access')
      .ifNotExists()
      .on('ci_caches')
      .columns(['repo_id', 'last_accessed_at'])
      .execute();
  },
};
