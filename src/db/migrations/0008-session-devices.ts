import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * What a person needs to recognise a sign-in on the sessions page (the browser's User-Agent,
 * cut to 300 characters), and the table that throttles password guessing. Failures live in the
 * database, not in memory, so every replica sees the same counts and locks; the key is a SHA-256
 * of the login name or client address, so mistyped names (often passwords) are not kept.
 */
export const sessionDevicesMigration: Migration = {
  name: '0008-session-devices',
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('sessions')
      .addColumn('user_agent', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .createTable('login_throttle')
      .addColumn('key_hash', 'text', (c) => c.primaryKey())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('lock_ms', 'bigint', (c) => c.notNull())
      .addColumn('locked_until', 'bigint', (c) => c.notNull())
      .execute();
  },
};
