import { type Kysely, sql } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Pull requests proposed from another server (ForgeFed `Offer{Ticket}`): they are filed under one
 * fixed account that never acts (src/domain/users/remote-author.ts), and the remote person who
 * proposed each is kept beside it in `pull_remote_authors`, with the id of the offer, so that an
 * offer delivered twice opens one pull request. As with the actions bot, a person already
 * holding the handle stops the migration with the unique-key error: rename them and start again.
 */
export const remotePullAuthorsMigration: Migration = {
  name: '0039-remote-pull-authors',
  async up(db: Kysely<unknown>) {
    await sql`
      insert into users (id, handle, handle_lower, kind, email, email_lower, full_name,
                         description, password_hash, created_at, updated_at)
      values ('00000000-0000-4000-8000-00000000fed0', 'kiln-federation', 'kiln-federation',
              'user', 'kiln-federation@noreply.invalid', 'kiln-federation@noreply.invalid',
              'Federated author', '', null, 0, 0)
      on conflict (id) do nothing`.execute(db);
    await db.schema
      .createTable('pull_remote_authors')
      .addColumn('pull_id', 'text', (c) =>
        c.primaryKey().references('pull_requests.id').onDelete('cascade'),
      )
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('login', 'text', (c) => c.notNull())
      .addColumn('avatar_url', 'text')
      .addColumn('offer_id', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
