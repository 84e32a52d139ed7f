import { type Kysely, sql } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * The actions bot's account (src/domain/users/actions-bot.ts): CI writes with a task token
 * are recorded under it — a pusher, a release's or pull's author — so that rows referring to
 * `users` stay whole and pages name it. No password, no address anyone can reach; the id and
 * handle are fixed. Where a person already holds the handle the migration stops with the
 * database's unique-key error: rename that account (the handle is reserved from now on) and
 * start again.
 */
export const actionsBotMigration: Migration = {
  name: '0022-actions-bot',
  async up(db: Kysely<unknown>) {
    await sql`
      insert into users (id, handle, handle_lower, kind, email, email_lower, full_name,
                         description, password_hash, created_at, updated_at)
      values ('00000000-0000-4000-8000-0000000ac7b0', 'kiln-actions', 'kiln-actions', 'user',
              'kiln-actions@noreply.invalid', 'kiln-actions@noreply.invalid', 'Kiln Actions',
              '', null, 0, 0)
      on conflict (id) do nothing`.execute(db);
  },
};
