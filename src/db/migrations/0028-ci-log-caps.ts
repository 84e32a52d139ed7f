import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Log caps: each task keeps the bytes its stored log holds (written as the log grows, a
 * megabyte at a time, and when it is sealed), so that a repository's stored log bytes are one
 * sum over its tasks; and whether its log was truncated at the task cap or the repository cap,
 * after which rows sent for it are acknowledged and dropped.
 */
export const ciLogCapsMigration: Migration = {
  name: '0028-ci-log-caps',
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('ci_tasks')
      .addColumn('log_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('ci_tasks')
      .addColumn('log_truncated', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
  },
};
