import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Reusable workflows and token permissions: a run keeps the workflow calls its jobs were
 * expanded from (what `with:`, `secrets:` and `outputs:` say, evaluated when a job is handed
 * out), and each job the permissions its task token is held to (null: `write-all`, as jobs made
 * before had).
 */
export const ciWorkflowCallsMigration: Migration = {
  name: '0032-ci-workflow-calls',
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('workflow_runs')
      .addColumn('calls', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema.alterTable('ci_tasks').addColumn('permissions', 'text').execute();
  },
};
