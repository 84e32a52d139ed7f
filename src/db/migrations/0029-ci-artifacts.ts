import type { Kysely } from 'kysely';
import type { Dialect, Migration } from '../migration.ts';

/**
 * CI artifacts: one row per artifact of a run (its name unique in the run), and one per file of
 * it. The bytes are files under the data directory (`artifacts/`), shared by replicas as the
 * repositories are; rows say what they are. A pipeline-protocol artifact has many files, each
 * stored as sent (gzip or not); a v4 artifact has one, the zip its client uploaded.
 */
export const ciArtifactsMigration: Migration = {
  name: '0029-ci-artifacts',
  async up(db: Kysely<unknown>, dialect: Dialect) {
    const id = dialect === 'postgres' ? 'bigint' : 'integer';
    await db.schema
      .createTable('ci_artifacts')
      // Ids are shown in REST and URLs and must never be reused for another artifact.
      .addColumn('id', id, (c) =>
        dialect === 'postgres'
          ? c.primaryKey().generatedAlwaysAsIdentity()
          : c.primaryKey().autoIncrement(),
      )
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('run_id', 'text', (c) =>
        c.notNull().references('workflow_runs.id').onDelete('cascade'),
      )
      .addColumn('task_id', 'bigint', (c) => c.notNull())
      .addColumn('job_name', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('protocol', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('ci_artifacts_run_name')
      .on('ci_artifacts')
      .columns(['run_id', 'name'])
      .unique()
      .execute();
    await db.schema
      .createIndex('ci_artifacts_repo')
      .on('ci_artifacts')
      .columns(['repo_id', 'id'])
      .execute();
    await db.schema
      .createIndex('ci_artifacts_expires')
      .on('ci_artifacts')
      .column('expires_at')
      .execute();
    await db.schema
      .createTable('ci_artifact_files')
      .addColumn('artifact_id', 'bigint', (c) =>
        c.notNull().references('ci_artifacts.id').onDelete('cascade'),
      )
      .addColumn('path', 'text', (c) => c.notNull())
      // Bytes as stored (gzip-encoded ones included) and as the client's file had them.
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('original_size', 'bigint', (c) => c.notNull())
      .addColumn('encoding', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_artifact_files_pk', ['artifact_id', 'path'])
      .execute();
  },
};
