/**
 * The per-owner repository counts of migration 0007, on the configured engine (SQLite, or the
 * PostgreSQL that KILN_TEST_DATABASE_URL names): filled from the repositories already stored when
 * the migration runs, then kept by the database through inserts, deletes, cascades and a change
 * of owner, whichever code (or none) makes them.
 */
import { describe, expect, it } from 'vitest';
import { type Database, migrate } from '../../src/db/database.ts';
import {
  insertOwner,
  insertRepos,
  migrateBefore,
  useScratchDatabase,
} from '../support/migrate-before.ts';

const COUNTS_MIGRATION = '0007-owner-repo-counts';

let database: Database;

/** Every stored count, by owner id; an owner without a row owns nothing. */
async function counts(): Promise<Record<string, number>> {
  const rows = await database.db.selectFrom('owner_repo_counts').selectAll().execute();
  return Object.fromEntries(rows.map((row) => [row.owner_id, Number(row.repositories)]));
}

/** What the counts must say: the repositories themselves, counted. */
async function actual(): Promise<Record<string, number>> {
  const rows = await database.db
    .selectFrom('repositories')
    .select((eb) => ['owner_id', eb.fn.countAll<number>().as('n')])
    .groupBy('owner_id')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.owner_id, Number(row.n)]));
}

const nonZero = (all: Record<string, number>) =>
  Object.fromEntries(Object.entries(all).filter(([, n]) => n !== 0));

useScratchDatabase('kiln-counts-', (opened) => {
  database = opened;
});

describe('owner repository counts', () => {
  let ada: string;
  let bob: string;
  let guild: string;

  it('are filled from the repositories stored before the migration', async () => {
    await migrateBefore(database, COUNTS_MIGRATION);
    ada = await insertOwner(database, 'ada');
    bob = await insertOwner(database, 'bob');
    guild = await insertOwner(database, 'guild', 'org');
    await insertRepos(database, ada, ['one', 'two', 'three']);
    await insertRepos(database, guild, ['tools']);

    await migrate(database);

    expect(await counts()).toEqual({ [ada]: 3, [guild]: 1 });
  });

  it('follow inserts and deletes', async () => {
    const [first] = await insertRepos(database, bob, ['a', 'b']);
    await insertRepos(database, ada, ['four']);
    await database.db
      .deleteFrom('repositories')
      .where('id', '=', first as string)
      .execute();
    expect(await counts()).toEqual({ [ada]: 4, [bob]: 1, [guild]: 1 });
  });

  it('follow a change of owner and ignore updates that keep it', async () => {
    await database.db
      .updateTable('repositories')
      .set({ owner_id: guild })
      .where('owner_id', '=', ada)
      .where('name_lower', '=', 'one')
      .execute();
    await database.db
      .updateTable('repositories')
      .set({ description: 'still ada' })
      .where('owner_id', '=', ada)
      .execute();
    expect(await counts()).toEqual({ [ada]: 3, [bob]: 1, [guild]: 2 });
  });

  it('follow the cascade when an owner is deleted, and leave the others alone', async () => {
    await database.db.deleteFrom('users').where('id', '=', ada).execute();
    expect(nonZero(await counts())).toEqual({ [bob]: 1, [guild]: 2 });
    expect(nonZero(await counts())).toEqual(await actual());
  });

  it('stay equal to a count of the repositories after a mixed batch', async () => {
    const eve = await insertOwner(database, 'eve');
    const ids = await insertRepos(
      database,
      eve,
      Array.from({ length: 40 }, (_, i) => `r${i}`),
    );
    await database.db
      .deleteFrom('repositories')
      .where(
        'id',
        'in',
        ids.filter((_, i) => i % 3 === 0),
      )
      .execute();
    await database.db
      .updateTable('repositories')
      .set({ owner_id: bob })
      .where('id', 'in', ids.filter((_, i) => i % 3 === 1).slice(0, 5))
      .execute();
    expect(nonZero(await counts())).toEqual(await actual());
  });
});
