import type { Kysely } from 'kysely';
import type { Dialect, Migration } from '../migration.ts';

/**
 * Git LFS. `lfs_objects` is one row per object whose bytes are stored (content-addressed under
 * the data directory, so one copy whatever the number of repositories); `lfs_repo_objects` says
 * which repository may reach which object, and is the only way one does: a fork gets rows for
 * its parent's objects, never a copy of the bytes, and an object no row reaches is an orphan
 * that housekeeping removes. `lfs_locks` holds the file locks of `git lfs lock`, one per path.
 */
export const lfsMigration: Migration = {
  name: '0035-lfs',
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const time = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable('lfs_objects')
      .ifNotExists()
      .addColumn('oid', 'text', (c) => c.primaryKey())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('created_at', time, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('lfs_repo_objects')
      .ifNotExists()
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('oid', 'text', (c) => c.notNull().references('lfs_objects.oid'))
      .addColumn('created_at', time, (c) => c.notNull())
      .addPrimaryKeyConstraint('lfs_repo_objects_pk', ['repo_id', 'oid'])
      .execute();
    // Orphans are found by object: "does any repository still reach it?".
    await db.schema
      .createIndex('lfs_repo_objects_by_oid')
      .ifNotExists()
      .on('lfs_repo_objects')
      .column('oid')
      .execute();
    await db.schema
      .createTable('lfs_locks')
      .ifNotExists()
      .addColumn('id', dialect === 'postgres' ? 'bigint' : 'integer', (c) =>
        dialect === 'postgres'
          ? c.primaryKey().generatedAlwaysAsIdentity()
          : c.primaryKey().autoIncrement(),
      )
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', time, (c) => c.notNull())
      .execute();
    // One lock per path: the unique index is what refuses a second, racing `git lfs lock`.
    await db.schema
      .createIndex('lfs_locks_path')
      .ifNotExists()
      .unique()
      .on('lfs_locks')
      .columns(['repo_id', 'path'])
      .execute();
  },
};
