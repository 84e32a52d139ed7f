import type { Kysely } from 'kysely';
import type { Dialect, Migration } from '../migration.ts';

/**
 * CI execution (runner.v1 phase 2): what a run was started by, per-job gating and task
 * credentials, step rows, outputs, and the per-scope `tasks_version` counters runners poll with.
 *
 * Logs are not rows: they go to files under the data directory (see src/domain/ci/logs/), so the
 * old `ci_log_rows` table stays unused.
 */
export const ciExecutionMigration: Migration = {
  name: '0012-ci-execution',
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const taskId = dialect === 'postgres' ? 'bigint' : 'integer';
    await addColumns(db, 'workflow_runs', [
      ['title', 'text', ''],
      ['event_payload', 'text', '{}'],
      ['actor', 'text', ''],
      ['head_ref', 'text', ''],
      ['base_ref', 'text', ''],
      ['fork_pull', 'boolean', false],
    ]);
    // Why a run could not start (a workflow that does not parse); null for a run that did.
    await db.schema.alterTable('workflow_runs').addColumn('error', 'text').execute();
    await db.schema.alterTable('workflow_runs').addColumn('concurrency_group', 'text').execute();
    await db.schema
      .createIndex('workflow_runs_repo_ref')
      .on('workflow_runs')
      .columns(['repo_id', 'ref', 'workflow_file', 'event'])
      .execute();

    await addColumns(db, 'ci_tasks', [
      ['attempt', 'integer', 0],
      ['has_if', 'boolean', false],
      ['step_names', 'text', '[]'],
      ['log_sealed', 'boolean', false],
      ['updated_at', 'bigint', 0],
    ]);
    // SHA-256 of the task token while the task runs; cleared when it ends, so the token dies.
    await db.schema.alterTable('ci_tasks').addColumn('token_hash', 'text').execute();
    await db.schema.alterTable('ci_tasks').addColumn('heartbeat_at', 'bigint').execute();
    await db.schema
      .createIndex('ci_tasks_token_hash')
      .on('ci_tasks')
      .column('token_hash')
      .unique()
      .where('token_hash', 'is not', null)
      .execute();
    // FetchTask looks for the oldest pending jobs; the sweeps for old pending/blocked ones.
    await db.schema
      .createIndex('ci_tasks_status_id')
      .on('ci_tasks')
      .columns(['status', 'id'])
      .execute();

    await db.schema
      .createTable('ci_task_steps')
      .addColumn('task_id', taskId, (c) =>
        c.notNull().references('ci_tasks.id').onDelete('cascade'),
      )
      .addColumn('step_index', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('log_index', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('log_length', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('started_at', 'bigint')
      .addColumn('stopped_at', 'bigint')
      .addPrimaryKeyConstraint('ci_task_steps_pk', ['task_id', 'step_index'])
      .execute();

    // One row per output: the primary key makes "the first write wins" a plain insert-or-ignore.
    await db.schema
      .createTable('ci_task_outputs')
      .addColumn('task_id', taskId, (c) =>
        c.notNull().references('ci_tasks.id').onDelete('cascade'),
      )
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_task_outputs_pk', ['task_id', 'name'])
      .execute();

    // The `on.schedule` crons of each workflow on a repository's default branch, kept at push.
    await db.schema
      .createTable('ci_schedules')
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('workflow_file', 'text', (c) => c.notNull())
      .addColumn('crons', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_schedules_pk', ['repo_id', 'workflow_file'])
      .execute();
    // One row per minute evaluated: inserting it is how one replica claims that minute.
    await db.schema
      .createTable('ci_schedule_ticks')
      .addColumn('minute', 'bigint', (c) => c.primaryKey())
      .execute();

    // `global`, `owner:<id>`, `repo:<id>`: bumped whenever a job in that scope becomes pending.
    await db.schema
      .createTable('ci_tasks_versions')
      .addColumn('scope', 'text', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
  },
};

/** Adds NOT NULL columns with defaults, one ALTER each (SQLite adds one column at a time). */
async function addColumns(
  db: Kysely<unknown>,
  table: string,
  columns: readonly (readonly [
    string,
    'text' | 'integer' | 'bigint' | 'boolean',
    string | number | boolean,
  ])[],
) {
  for (const [column, type, fallback] of columns) {
    await db.schema
      .alterTable(table)
      .addColumn(column, type, (c) => c.notNull().defaultTo(fallback))
      .execute();
  }
}
