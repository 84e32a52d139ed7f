import type { Kysely } from 'kysely';
import type { Dialect, Migration } from '../migration.ts';

/**
 * CI: runner registration tokens, runners, workflow runs, their tasks and log rows, and the
 * per-repository secrets and variables.
 *
 * A scope (of a token or a runner) is kept as a kind plus two nullable foreign keys rather than
 * one untyped id, so that deleting a repository or an organisation also deletes the tokens and
 * runners scoped to it: a runner of a deleted repository must not keep authenticating.
 */
export const ciMigration: Migration = {
  name: '0003-ci',
  async up(db: Kysely<unknown>, dialect: Dialect) {
    await db.schema
      .createTable('runner_registration_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('scope_kind', 'text', (c) => c.notNull())
      .addColumn('scope_repo_id', 'text', (c) =>
        c.references('repositories.id').onDelete('cascade'),
      )
      .addColumn('scope_org_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .execute();

    await db.schema
      .createTable('runners')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('uuid', 'text', (c) => c.notNull().unique())
      .addColumn('token_hash', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('labels', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('version', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('capabilities', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('ephemeral', 'boolean', (c) => c.notNull())
      .addColumn('scope_kind', 'text', (c) => c.notNull())
      .addColumn('scope_repo_id', 'text', (c) =>
        c.references('repositories.id').onDelete('cascade'),
      )
      .addColumn('scope_org_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .execute();
    // Partial: most runners are instance-wide, and registering one should not write index pages
    // for NULL scope ids. `scope_repo_id = ?` (listing, cascading deletes) still uses them.
    await db.schema
      .createIndex('runners_scope_repo')
      .on('runners')
      .column('scope_repo_id')
      .where('scope_repo_id', 'is not', null)
      .execute();
    await db.schema
      .createIndex('runners_scope_org')
      .on('runners')
      .column('scope_org_id')
      .where('scope_org_id', 'is not', null)
      .execute();

    await db.schema
      .createTable('workflow_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('number', 'bigint', (c) => c.notNull())
      .addColumn('workflow_name', 'text', (c) => c.notNull())
      .addColumn('workflow_file', 'text', (c) => c.notNull())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('ref', 'text', (c) => c.notNull())
      .addColumn('sha', 'text', (c) => c.notNull())
      .addColumn('triggered_by', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('started_at', 'bigint')
      .addColumn('stopped_at', 'bigint')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('workflow_runs_repo_number', ['repo_id', 'number'])
      .execute();

    // Run numbers are handed out by an atomic upsert on this counter, inside the transaction that
    // inserts the run, so concurrent triggers on several replicas never share or skip a number.
    await db.schema
      .createTable('ci_run_counters')
      .addColumn('repo_id', 'text', (c) =>
        c.primaryKey().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('last_number', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('ci_tasks')
      // Task ids go to runners as int64 and must never be reused, so they come from the engine's
      // own monotonic sequence rather than from max(id) + 1.
      .addColumn('id', dialect === 'postgres' ? 'bigint' : 'integer', (c) =>
        dialect === 'postgres'
          ? c.primaryKey().generatedAlwaysAsIdentity()
          : c.primaryKey().autoIncrement(),
      )
      .addColumn('run_id', 'text', (c) =>
        c.notNull().references('workflow_runs.id').onDelete('cascade'),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('runs_on', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('needs', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('outputs', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('job_key', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('runner_id', 'text', (c) => c.references('runners.id').onDelete('set null'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('log_rows', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('deadline_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('started_at', 'bigint')
      .addColumn('stopped_at', 'bigint')
      .execute();
    await db.schema.createIndex('ci_tasks_run').on('ci_tasks').column('run_id').execute();
    await db.schema.createIndex('ci_tasks_runner').on('ci_tasks').column('runner_id').execute();
    // The zombie sweep looks for running tasks by deadline.
    await db.schema
      .createIndex('ci_tasks_status_deadline')
      .on('ci_tasks')
      .columns(['status', 'deadline_at'])
      .execute();

    await db.schema
      .createTable('ci_log_rows')
      .addColumn('task_id', 'bigint', (c) =>
        c.notNull().references('ci_tasks.id').onDelete('cascade'),
      )
      // 0-based line number within the task's log; `index` itself is a reserved word in SQL.
      .addColumn('row_index', 'bigint', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('logged_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_log_rows_pk', ['task_id', 'row_index'])
      .execute();

    await db.schema
      .createTable('ci_secrets')
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('encrypted_value', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_secrets_pk', ['repo_id', 'name'])
      .execute();

    await db.schema
      .createTable('ci_variables')
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_variables_pk', ['repo_id', 'name'])
      .execute();
  },
};
