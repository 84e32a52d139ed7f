/**
 * `migrate` on the configured engine: what is pending is applied, in order, and a database with
 * nothing pending (every start after the first) is left as it is and reported as such.
 */
import { expect, it } from 'vitest';
import { type Database, knownMigrations, migrate } from '../../src/db/database.ts';
import { appliedMigrations } from '../../src/db/schema-facts.ts';
import { migrateBefore, useScratchDatabase } from '../support/migrate-before.ts';

let database: Database;
useScratchDatabase('kiln-migrate-again-', (opened) => {
  database = opened;
});

it('applies what is pending, then nothing on the next start', async () => {
  // Kysely applies them in the order of their names.
  const known = knownMigrations().toSorted();
  const last = known.at(-1) ?? '';
  await migrateBefore(database, last);
  expect(await appliedMigrations(database)).toEqual(known.slice(0, -1));

  const first = await migrate(database);
  expect(first.results?.map((r) => [r.migrationName, r.status])).toEqual([[last, 'Success']]);
  expect(await appliedMigrations(database)).toEqual(known);

  const again = await migrate(database);
  expect(again.error).toBeUndefined();
  expect(again.results).toEqual([]);
  expect(await appliedMigrations(database)).toEqual(known);
});
