import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * An operator can disable a person (`kiln user disable`): `disabled_at` holds when, and null means
 * the account is in use. A disabled person keeps their repositories and everything they wrote,
 * but cannot sign in, and their sessions and tokens stop working (UserService.findActiveUser).
 */
export const userDisabledMigration: Migration = {
  name: '0009-user-disabled',
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();
  },
};
