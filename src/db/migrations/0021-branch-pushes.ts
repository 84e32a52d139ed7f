import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Who last pushed each branch, and when: a repository's page offers "Compare & pull request" for
 * branches its viewer pushed within the last hour, as Gitea does. One row per branch, replaced
 * by each push and removed with the branch (or its repository).
 */
export const branchPushesMigration: Migration = {
  name: '0021-branch-pushes',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('branch_pushes')
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('branch', 'text', (c) => c.notNull())
      .addColumn('pusher_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('pushed_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('branch_pushes_pk', ['repo_id', 'branch'])
      .execute();
  },
};
