import { type Kysely, sql } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * SSH public keys: a person's keys and a repository's deploy keys in one table, so that the SSH
 * server finds whoever a connecting key belongs to with one query on the unique fingerprint
 * index, and one key can never be both a person's and a deploy key, nor two people's. Exactly
 * one of `user_id` and `repo_id` is set; either row goes with its owner.
 */
export const sshKeysMigration: Migration = {
  name: '0034-ssh-keys',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('ssh_keys')
      .ifNotExists()
      .addColumn('id', 'text', (c) => c.primaryKey())
      // OpenSSH's `SHA256:…` of the key blob.
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('repo_id', 'text', (c) => c.references('repositories.id').onDelete('cascade'))
      // Who added a deploy key: its pushes are theirs (webhooks, CI), while they may act.
      .addColumn('added_by', 'text', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('key_type', 'text', (c) => c.notNull())
      // `TYPE BASE64`, without the comment: what the API shows and `kiln doctor` parses again.
      .addColumn('public_key', 'text', (c) => c.notNull())
      .addColumn('read_only', 'boolean', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addCheckConstraint('ssh_keys_one_owner', sql`(user_id is null) <> (repo_id is null)`)
      .execute();
    await db.schema
      .createIndex('ssh_keys_fingerprint')
      .ifNotExists()
      .on('ssh_keys')
      .column('fingerprint')
      .unique()
      .execute();
    await db.schema
      .createIndex('ssh_keys_user')
      .ifNotExists()
      .on('ssh_keys')
      .column('user_id')
      .execute();
    await db.schema
      .createIndex('ssh_keys_repo')
      .ifNotExists()
      .on('ssh_keys')
      .column('repo_id')
      .execute();
  },
};
