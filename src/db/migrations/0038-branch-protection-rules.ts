import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * The rest of Gitea's branch protection on `protected_branches`: `branch` now holds a rule name
 * that may be a glob (`release/*`); `settings` keeps the review, push and merge rules as one
 * JSON object (required approvals, who may approve, push and merge, what blocks a merge), read
 * and written whole by the protected-branch store; `updated_at` is when they last changed.
 */
export const branchProtectionRulesMigration: Migration = {
  name: '0038-branch-protection-rules',
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('protected_branches')
      .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema.alterTable('protected_branches').addColumn('updated_at', 'bigint').execute();
  },
};
