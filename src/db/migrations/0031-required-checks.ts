import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Required checks on a protected branch, in Gitea's terms: whether merging into it waits for
 * CI (`enable_status_check`) and the glob patterns of the checks it waits for
 * (`status_check_contexts`, a JSON array; empty means every check of the head commit).
 */
export const requiredChecksMigration: Migration = {
  name: '0031-required-checks',
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('protected_branches')
      .addColumn('enable_status_check', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
    await db.schema
      .alterTable('protected_branches')
      .addColumn('status_check_contexts', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
  },
};
