import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Scopes and an optional expiry for personal access tokens. `scopes` holds Gitea's normalized
 * names, comma-separated; tokens made before scopes existed keep full access (`all`), so no
 * client that works today stops working. `expires_at` is null for a token that never expires.
 */
export const tokenScopesMigration: Migration = {
  name: '0010-token-scopes',
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('access_tokens')
      .addColumn('scopes', 'text', (c) => c.notNull().defaultTo('all'))
      .execute();
    await db.schema.alterTable('access_tokens').addColumn('expires_at', 'bigint').execute();
  },
};
