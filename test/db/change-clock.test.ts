/**
 * The change clock on the configured engine, seen by two handles on one database as two
 * replicas (or a server and a command) see it: a writer's own write moves its stamp at once; a
 * commit by the other moves it soon after (PostgreSQL: when the notification arrives); and on
 * PostgreSQL, while the listening connection is lost nothing may be reused, until it is back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, migrate, openDatabase } from '../../src/db/database.ts';
import { CHANGE_LISTENER_NAME } from '../../src/db/postgres-change-clock.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

let dataDir: string;
let testDatabase: TestDatabase;
let writer: Database;
let reader: Database;

/** The stamp once the clock can give one (PostgreSQL's listens first). */
async function stampOf(database: Database): Promise<number> {
  await expect.poll(() => database.changes.stamp(), { timeout: 5_000 }).toBeDefined();
  return database.changes.stamp() as number;
}

let attempt = 0;
async function write(database: Database): Promise<void> {
  attempt += 1;
  await database.db
    .insertInto('login_throttle')
    .values({
      key_hash: `key-${attempt}`,
      failures: 1,
      window_start: 0,
      lock_ms: 0,
      locked_until: 0,
    })
    .execute();
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'kiln-change-clock-'));
  testDatabase = await createTestDatabase();
  writer = await openDatabase({ databaseUrl: testDatabase.url, dataDir });
  await migrate(writer);
  reader = await openDatabase({ databaseUrl: testDatabase.url, dataDir });
});
afterAll(async () => {
  await reader?.close();
  await writer?.close();
  await testDatabase?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the change clock', () => {
  it('moves for the writer as soon as its write is done', async () => {
    const before = await stampOf(writer);
    await write(writer);
    expect(writer.changes.stamp()).not.toBe(before);
  });

  it('moves after a transaction commits, not only after its statements', async () => {
    await stampOf(writer);
    let inside: number | undefined;
    await writer.db.transaction().execute(async (tx) => {
      await sql`update login_throttle set failures = failures + 1`.execute(tx);
      inside = writer.changes.stamp();
    });
    expect(writer.changes.stamp()).not.toBe(inside);
  });

  it('stays put while nothing is written', async () => {
    const before = await stampOf(reader);
    await reader.db.selectFrom('login_throttle').selectAll().execute();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reader.changes.stamp()).toBe(before);
  });

  it('moves for another process soon after a commit there', async () => {
    const before = await stampOf(reader);
    await write(writer);
    await expect.poll(() => reader.changes.stamp(), { timeout: 2_000 }).not.toBe(before);
  });

  it.runIf(testDatabase?.url ?? process.env.KILN_TEST_DATABASE_URL)(
    'reuses nothing while its notifications cannot arrive, then listens again',
    async () => {
      const before = await stampOf(reader);
      const admin = await openDatabase({ databaseUrl: testDatabase.url, dataDir });
      try {
        await sql`select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = ${CHANGE_LISTENER_NAME} and datname = current_database()`.execute(
          admin.db,
        );
      } finally {
        await admin.close();
      }
      await expect.poll(() => reader.changes.stamp(), { timeout: 2_000 }).toBeUndefined();
      const after = await stampOf(reader);
      expect(after).not.toBe(before);
      // Listening again, it hears the other process's commits again.
      await write(writer);
      await expect.poll(() => reader.changes.stamp(), { timeout: 2_000 }).not.toBe(after);
    },
  );
});
