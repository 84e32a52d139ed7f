import { type Kysely, sql } from 'kysely';
import type { Dialect, Migration } from '../migration.ts';

/**
 * Run attempts and annotations. A run counts its attempts (1, then one more per re-run) and each
 * job keeps the attempt it last ran in, as GitHub numbers them; runs re-run before this kept the
 * count only on their jobs, so a run starts from the highest of its jobs'. `ci_annotations` holds
 * the `::error`/`::warning`/`::notice` lines of a job's log, a bounded number per level and job.
 */
export const ciAttemptsAnnotationsMigration: Migration = {
  name: '0033-ci-attempts-annotations',
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const taskId = dialect === 'postgres' ? 'bigint' : 'integer';
    // On SQLite migrations run outside a transaction: a start stopped half-way is resumed.
    const tables = await db.introspection.getTables();
    const hasAttempt = tables.some(
      (t) => t.name === 'workflow_runs' && t.columns.some((c) => c.name === 'attempt'),
    );
    if (!hasAttempt) {
      await db.schema
        .alterTable('workflow_runs')
        .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await sql`update workflow_runs set attempt = coalesce(
          (select max(t.attempt) from ci_tasks t where t.run_id = workflow_runs.id and t.attempt > 0),
          1)`.execute(db);
    }
    await db.schema
      .createTable('ci_annotations')
      .ifNotExists()
      .addColumn('task_id', taskId, (c) =>
        c.notNull().references('ci_tasks.id').onDelete('cascade'),
      )
      .addColumn('level', 'text', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('title', 'text')
      .addColumn('file', 'text')
      .addColumn('line', 'integer')
      .addColumn('end_line', 'integer')
      .addColumn('col', 'integer')
      .addColumn('end_col', 'integer')
      // One command per log row: the row keys the annotation, so a batch sent again, or rows of
      // one log stored through different replicas, never make two of one line.
      .addColumn('log_row', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_annotations_pk', ['task_id', 'log_row'])
      .execute();
  },
};
