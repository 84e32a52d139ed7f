import { type Kysely, sql } from 'kysely';
import type { Dialect, Migration } from '../migration.ts';

/**
 * Approval of workflow runs for pull requests from forks (src/domain/ci/fork-approval.ts): a run
 * remembers the pull request it was made for, whether it had to wait for approval, and who
 * approved it and when; `ci_pull_approvals` keeps, per pull request, the people whose runs a
 * writer approved, so that their later runs of that pull request do not ask again.
 *
 * Runs made before had no gate: every unfinished run of a pull request from a fork is made to
 * wait here, whoever started it. Telling writers' runs apart would mean reproducing access rules
 * (collaborators, teams, organisation roles, administrators) in SQL; leaving them all runnable
 * would let a queued stranger's job reach a runner after the upgrade. One approval per pull
 * request lets a writer's runs go again. Jobs already handed to a runner finish as they are.
 */
export const forkPullApprovalMigration: Migration = {
  name: '0027-fork-pull-approval',
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const time = dialect === 'postgres' ? 'bigint' : 'integer';
    // On SQLite migrations run outside a transaction: a start stopped half-way has added some
    // columns without recording the migration, and the next start adds only the others.
    const tables = await db.introspection.getTables();
    const has = (table: string, column: string) =>
      tables.some((t) => t.name === table && t.columns.some((c) => c.name === column));
    if (!has('workflow_runs', 'pull_id')) {
      await db.schema.alterTable('workflow_runs').addColumn('pull_id', 'text').execute();
    }
    if (!has('workflow_runs', 'needs_approval')) {
      await db.schema
        .alterTable('workflow_runs')
        .addColumn('needs_approval', 'boolean', (c) => c.notNull().defaultTo(false))
        .execute();
    }
    if (!has('workflow_runs', 'approved_by')) {
      await db.schema.alterTable('workflow_runs').addColumn('approved_by', 'text').execute();
    }
    if (!has('workflow_runs', 'approved_at')) {
      await db.schema.alterTable('workflow_runs').addColumn('approved_at', time).execute();
    }
    await db.schema
      .createIndex('workflow_runs_pull')
      .ifNotExists()
      .on('workflow_runs')
      .column('pull_id')
      .where('pull_id', 'is not', null)
      .execute();
    await db.schema
      .createTable('ci_pull_approvals')
      .ifNotExists()
      .addColumn('pull_id', 'text', (c) =>
        c.notNull().references('pull_requests.id').onDelete('cascade'),
      )
      .addColumn('actor_id', 'text', (c) => c.notNull())
      .addColumn('approved_by', 'text', (c) => c.notNull())
      .addColumn('approved_at', time, (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_pull_approvals_pk', ['pull_id', 'actor_id'])
      .execute();
    // Pull request runs are on `refs/pull/N/head` of the base repository.
    await sql`update workflow_runs set pull_id = (
        select p.id from pull_requests p
        where p.repo_id = workflow_runs.repo_id
          and workflow_runs.ref = 'refs/pull/' || p.number || '/head')
      where event = 'pull_request' and pull_id is null`.execute(db);
    await sql`update workflow_runs set needs_approval = ${sql.lit(true)}
      where fork_pull = ${sql.lit(true)} and pull_id is not null and approved_at is null
        and status in ('PENDING', 'BLOCKED', 'RUNNING')`.execute(db);
  },
};
