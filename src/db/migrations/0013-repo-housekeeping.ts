import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Background repository maintenance. `repo_housekeeping` holds one lease row per repository:
 * a replica claims it with a conditional write before repacking, so no two processes ever
 * maintain one repository at once, and it remembers when the last full (pruning) repack ran.
 * `housekeeping_runs` keeps what each run did, for the admin page and for operators.
 * Both are keyed by the repository's directory (`owner/name`, lowercased), not its row: what the
 * lease guards is the directory, which other processes that read object files (`kiln dump`)
 * claim the same way, and a run may outlive its repository's row.
 */
export const repoHousekeepingMigration: Migration = {
  name: '0013-repo-housekeeping',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('repo_housekeeping')
      .addColumn('repo_key', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'bigint', (c) => c.notNull())
      .addColumn('last_full_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('housekeeping_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('repo_key', 'text', (c) => c.notNull())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint', (c) => c.notNull())
      .addColumn('packs_before', 'integer', (c) => c.notNull())
      .addColumn('loose_before', 'integer', (c) => c.notNull())
      .addColumn('packs_after', 'integer', (c) => c.notNull())
      .addColumn('loose_after', 'integer', (c) => c.notNull())
      .addColumn('error', 'text')
      .execute();
    await db.schema
      .createIndex('housekeeping_runs_finished')
      .on('housekeeping_runs')
      .column('finished_at')
      .execute();
  },
};
