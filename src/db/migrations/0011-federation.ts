import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Federation (ActivityPub / ForgeFed): the key pairs of local actors, who follows them from
 * other servers, stars given by remote actors, what each actor published (its outbox), and the
 * two stores the delivery machinery needs: a key-value store (remote documents, host health)
 * and the delivery queue, shared by every replica.
 */
export const federationMigration: Migration = {
  name: '0011-federation',
  async up(db: Kysely<unknown>) {
    // `actor` is `instance`, `user:<uuid>` or `repo:<uuid>`: ids, not handles, so a rename
    // keeps the keys. Private halves are sealed with the service secret key.
    await db.schema
      .createTable('federation_keys')
      .addColumn('actor', 'text', (c) => c.primaryKey())
      .addColumn('rsa_public', 'text', (c) => c.notNull())
      .addColumn('rsa_private', 'text', (c) => c.notNull())
      .addColumn('ed25519_public', 'text', (c) => c.notNull())
      .addColumn('ed25519_private', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('federation_followers')
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('follower', 'text', (c) => c.notNull())
      .addColumn('inbox', 'text', (c) => c.notNull())
      .addColumn('shared_inbox', 'text')
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('federation_followers_pk', ['actor', 'follower'])
      .execute();
    await db.schema
      .createTable('federation_stars')
      .addColumn('repo_id', 'text', (c) =>
        c.notNull().references('repositories.id').onDelete('cascade'),
      )
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('federation_stars_pk', ['repo_id', 'actor'])
      .execute();
    await db.schema
      .createTable('federation_activities')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('json', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('federation_activities_actor_created')
      .on('federation_activities')
      .columns(['actor', 'created_at'])
      .execute();
    await db.schema
      .createTable('federation_kv')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .execute();
    // A message is claimed by setting `claimed_until` with a conditional UPDATE, so with several
    // replicas exactly one of them runs it; a claim that outlives its holder expires.
    await db.schema
      .createTable('federation_queue')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('run_at', 'bigint', (c) => c.notNull())
      .addColumn('claimed_until', 'bigint')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('federation_queue_run_at')
      .on('federation_queue')
      .columns(['run_at'])
      .execute();
  },
};
