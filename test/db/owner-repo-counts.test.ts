/**
 * The per-owner repository counts of migration 0007, on the configured engine (SQLite, or the
 * PostgreSQL that KILN_TEST_DATABASE_URL names): filled from the repositories already stored when
 * the migration runs, then kept by the database through inserts, deletes, cascades and a change
 * of owner, whichever code (or none) makes them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../src/db/database.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const COUNTS_MIGRATION = '0007-owner-repo-counts';

let dataDir: string;
let testDatabase: TestDatabase;
let database: Database;

/** Applies the migrations that precede the counts, as an installation made before them has. */
async function migrateBeforeCounts(): Promise<void> {
  const before = migrations.slice(
    0,
    migrations.findIndex((migration) => migration.name === COUNTS_MIGRATION),
  );
  const migrator = new Migrator({
    db: database.db,
    migrationTableName: 'kiln_migrations',
    migrationLockTableName: 'kiln_migrations_lock',
    provider: {
      getMigrations: async () =>
        Object.fromEntries(
          before.map((migration) => [
            migration.name,
            { up: (db) => migration.up(db, database.dialect) },
          ]),
        ),
    },
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

async function addOwner(handle: string, kind: 'user' | 'org' = 'user'): Promise<string> {
  const id = crypto.randomUUID();
  await database.db
    .insertInto('users')
    .values({
      id,
      handle,
      handle_lower: handle.toLowerCase(),
      kind,
      email: kind === 'user' ? `${handle}@example.com` : null,
      email_lower: kind === 'user' ? `${handle}@example.com` : null,
      full_name: '',
      description: '',
      password_hash: null,
      created_at: 0,
      updated_at: 0,
    })
    .execute();
  return id;
}

async function addRepos(ownerId: string, names: string[]): Promise<string[]> {
  const rows = names.map((name) => ({
    id: crypto.randomUUID(),
    owner_id: ownerId,
    name,
    name_lower: name.toLowerCase(),
    description: '',
    private: false,
    parent_id: null,
    pull_counter: 0,
    created_at: 0,
    updated_at: 0,
  }));
  await database.db.insertInto('repositories').values(rows).execute();
  return rows.map((row) => row.id);
}

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

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kiln-counts-'));
  testDatabase = await createTestDatabase();
  database = await openDatabase({ databaseUrl: testDatabase.url, dataDir });
});

afterAll(async () => {
  await database?.close();
  await testDatabase?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('owner repository counts', () => {
  let ada: string;
  let bob: string;
  let guild: string;

  it('are filled from the repositories stored before the migration', async () => {
    await migrateBeforeCounts();
    ada = await addOwner('ada');
    bob = await addOwner('bob');
    guild = await addOwner('guild', 'org');
    await addRepos(ada, ['one', 'two', 'three']);
    await addRepos(guild, ['tools']);

    await migrate(database);

    expect(await counts()).toEqual({ [ada]: 3, [guild]: 1 });
  });

  it('follow inserts and deletes', async () => {
    const [first] = await addRepos(bob, ['a', 'b']);
    await addRepos(ada, ['four']);
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
    const eve = await addOwner('eve');
    const ids = await addRepos(
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
