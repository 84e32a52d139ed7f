import type { Kysely } from 'kysely';
import { contentHash } from '../../lib/content-hash.ts';
import type { Migration } from '../migration.ts';

type WithBody = { id: string; body: string; body_hash: string };
/** The two tables as this migration sees them. */
type BodyTables = { releases: WithBody; pull_requests: WithBody };

/** Rows hashed per read: bodies run to a megabyte each. */
const BATCH = 16;

/**
 * Release notes and pull request bodies get the hash of their text beside them
 * (`contentHash`, written with the body by the stores). A page reads the hash and finds the body
 * (and its render) kept in memory by it, instead of reading up to a megabyte of text on every
 * view. Bodies stored before are hashed here, a batch at a time.
 */
export const bodyHashesMigration: Migration = {
  name: '0026-body-hashes',
  async up(untyped: Kysely<unknown>) {
    const db = untyped.withTables<BodyTables>();
    const tables = await untyped.introspection.getTables();
    for (const table of ['releases', 'pull_requests'] as const) {
      // On SQLite migrations run outside a transaction: a start stopped while hashing has added
      // the column without recording the migration, and the next start hashes again.
      const columns = tables.find((found) => found.name === table)?.columns ?? [];
      if (!columns.some((column) => column.name === 'body_hash')) {
        await db.schema
          .alterTable(table)
          .addColumn('body_hash', 'text', (column) => column.notNull().defaultTo(''))
          .execute();
      }
      for (let after = ''; ; ) {
        const rows = await db
          .selectFrom(table)
          .select(['id', 'body'])
          .where('id', '>', after)
          .orderBy('id')
          .limit(BATCH)
          .execute();
        for (const row of rows) {
          await db
            .updateTable(table)
            .set({ body_hash: contentHash(row.body) })
            .where('id', '=', row.id)
            .execute();
        }
        const last = rows.at(-1);
        if (!last || rows.length < BATCH) break;
        after = last.id;
      }
    }
  },
};
