import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Job-level `concurrency:` (`jobs.<id>.concurrency`): each job row keeps its evaluated group and
 * `cancel-in-progress`, and whether it is blocked waiting for its group (rather than for its
 * `needs`). The index finds the jobs of a group; groups are per repository, as in Gitea.
 */
export const ciJobConcurrencyMigration: Migration = {
  name: '0023-ci-job-concurrency',
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('ci_tasks').addColumn('concurrency_group', 'text').execute();
    await db.schema
      .alterTable('ci_tasks')
      .addColumn('concurrency_cancel', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
    await db.schema
      .alterTable('ci_tasks')
      .addColumn('concurrency_queued', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
    await db.schema
      .createIndex('ci_tasks_concurrency_group')
      .on('ci_tasks')
      .column('concurrency_group')
      .execute();
  },
};
