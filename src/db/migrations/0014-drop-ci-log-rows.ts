import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Drops `ci_log_rows`: task logs have lived in files under the data directory since the CI
 * execution migration (an offsets file and a rows file per task), and nothing reads or writes the
 * table any more. Rows a server wrote before that migration were never shown again either, so
 * nothing a user could see is lost.
 */
export const dropCiLogRowsMigration: Migration = {
  name: '0014-drop-ci-log-rows',
  async up(db: Kysely<unknown>) {
    await db.schema.dropTable('ci_log_rows').ifExists().execute();
  },
};
