import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Blocks of remote actors and servers made at run time: a site administrator's (`repo_id` null,
 * every repository) or a repository administrator's (that repository only, gone with it).
 * `target` is the normalised actor id or host rule (federation/blocks.ts); `key` folds scope,
 * kind and target into one primary key, so blocking twice keeps one row on either engine (a
 * unique index over a nullable column would not).
 */
export const federationBlocksMigration: Migration = {
  name: '0040-federation-blocks',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('federation_blocks')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('repo_id', 'text', (c) => c.references('repositories.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('federation_blocks_repo')
      .on('federation_blocks')
      .column('repo_id')
      .execute();
  },
};
