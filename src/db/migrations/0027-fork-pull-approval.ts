import type { Kysely } from 'kysely';
import type { Dialect, Migration } from '../migration.ts';

/**
 * Approval of workflow runs for pull requests from forks (src/domain/ci/fork-approval.ts): a run
 * remembers the pull request it was made for, whether it had to wait for approval, and who
 * approved it and when; `ci_pull_approvals` keeps, per pull request, the people whose runs a
 * writer approved, so that their later runs of that pull request do not ask again.
 */
export const forkPullApprovalMigration: Migration = {
  name: '0027-fork-pull-approval',
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const time = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema.alterTable('workflow_runs').addColumn('pull_id', 'text').execute();
    await db.schema
      .alterTable('workflow_runs')
      .addColumn('needs_approval', 'boolean', (c) => c.notNull().defaultTo(false))
      .execute();
    await db.schema.alterTable('workflow_runs').addColumn('approved_by', 'text').execute();
    await db.schema.alterTable('workflow_runs').addColumn('approved_at', time).execute();
    await db.schema
      .createIndex('workflow_runs_pull')
      .on('workflow_runs')
      .column('pull_id')
      .where('pull_id', 'is not', null)
      .execute();
    await db.schema
      .createTable('ci_pull_approvals')
      .addColumn('pull_id', 'text', (c) =>
        c.notNull().references('pull_requests.id').onDelete('cascade'),
      )
      .addColumn('actor_id', 'text', (c) => c.notNull())
      .addColumn('approved_by', 'text', (c) => c.notNull())
      .addColumn('approved_at', time, (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_pull_approvals_pk', ['pull_id', 'actor_id'])
      .execute();
  },
};
