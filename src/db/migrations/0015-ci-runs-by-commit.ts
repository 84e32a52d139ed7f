import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Commit lists (history, a commit, a pull's commits) show each commit's CI check, read by
 * repository and commit: an index on both keeps that one lookup per page whatever the number of
 * runs the repository has had.
 */
export const ciRunsByCommitMigration: Migration = {
  name: '0015-ci-runs-by-commit',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('workflow_runs_repo_sha')
      .on('workflow_runs')
      .columns(['repo_id', 'sha'])
      .execute();
  },
};
