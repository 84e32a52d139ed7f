import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * `concurrency:` groups without `cancel-in-progress`: a run that arrives while another run of its
 * group is unfinished waits, queued, with every job blocked, until that one ends. The flag says
 * which blocked runs wait for their group rather than for `needs`; the index finds a group's runs.
 */
export const ciConcurrencyQueueMigration: Migration = {
  name: '0017-ci-concurrency-queue',
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('workflow_runs')
      .addColumn('concurrency_queued', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
    await db.schema
      .createIndex('workflow_runs_repo_concurrency_group')
      .on('workflow_runs')
      .columns(['repo_id', 'concurrency_group'])
      .execute();
  },
};
