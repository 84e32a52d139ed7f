import type { Kysely } from 'kysely';
import type { Migration } from '../migration.ts';

/**
 * Indexes in the orders pull lists are read (newest or oldest created, most or least recently
 * updated; the number breaks ties), with and without a state filter, so a page of a repository's
 * pulls is read along an index and stops at the page instead of sorting every pull first.
 */
export const pullListIndexesMigration: Migration = {
  name: '0006-pull-list-indexes',
  async up(db: Kysely<unknown>) {
    // Replaced below by one that also orders ties.
    await db.schema.dropIndex('pull_requests_repo_state_updated').execute();
    const indexes: Array<[string, string[]]> = [
      ['pull_requests_repo_created', ['repo_id', 'created_at', 'number']],
      ['pull_requests_repo_state_created', ['repo_id', 'state', 'created_at', 'number']],
      ['pull_requests_repo_updated', ['repo_id', 'updated_at', 'number']],
      ['pull_requests_repo_state_updated', ['repo_id', 'state', 'updated_at', 'number']],
    ];
    for (const [name, columns] of indexes) {
      await db.schema.createIndex(name).on('pull_requests').columns(columns).execute();
    }
  },
};
