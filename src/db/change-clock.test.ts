import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  NO_CHANGE_CLOCK,
  OTHER_WRITERS_WINDOW_MS,
  SqliteChangeClock,
  TableChangeClock,
} from './change-clock.ts';
import { NodeSqliteDialect, openSqlite } from './sqlite-adapter.ts';

type Schema = { notes: { id: number; body: string } };

describe('SqliteChangeClock', () => {
  let dir: string;
  let path: string;
  let now: number;
  let clock: SqliteChangeClock;
  let db: Kysely<Schema>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kiln-clock-'));
    path = join(dir, 'kiln.db');
    now = 0;
    clock = new SqliteChangeClock(path, () => now);
    const sqlite = openSqlite({ path, onWrite: () => clock.noteWrite() });
    clock.observeOthersThrough(() => sqlite.dataVersion());
    db = new Kysely<Schema>({ dialect: new NodeSqliteDialect(sqlite) });
    await sql`create table notes (id integer primary key, body text not null)`.execute(db);
  });

  afterEach(async () => {
    await db.destroy();
    clock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds still while only reads run', async () => {
    const before = clock.stamp();
    await db.selectFrom('notes').selectAll().execute();
    await sql`SELECT count(*) FROM notes`.execute(db);
    now += 10 * OTHER_WRITERS_WINDOW_MS;
    expect(clock.stamp()).toBe(before);
  });

  it("moves at once with this process's writes, with no time passing", async () => {
    const stamps = [clock.stamp()];
    await db.insertInto('notes').values({ id: 1, body: 'a' }).execute();
    stamps.push(clock.stamp());
    await db.updateTable('notes').set({ body: 'b' }).execute();
    stamps.push(clock.stamp());
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('notes').execute();
    });
    stamps.push(clock.stamp());
    expect(new Set(stamps).size).toBe(stamps.length);
  });

  it("sees another connection's commit once the window has passed", () => {
    const before = clock.stamp();
    const other = new DatabaseSync(path);
    other.prepare('insert into notes (id, body) values (7, ?)').run('from elsewhere');
    other.close();
    // Asked within the window: the last answer stands.
    now += OTHER_WRITERS_WINDOW_MS / 2;
    expect(clock.stamp()).toBe(before);
    now += OTHER_WRITERS_WINDOW_MS;
    expect(clock.stamp()).not.toBe(before);
  });

  it("is not moved by another connection's reads", () => {
    const before = clock.stamp();
    const other = new DatabaseSync(path);
    other.prepare('select * from notes').all();
    other.close();
    now += 10 * OTHER_WRITERS_WINDOW_MS;
    expect(clock.stamp()).toBe(before);
  });

  describe('TableChangeClock', () => {
    it("holds through this process's other writes and moves with its own", async () => {
      const table = new TableChangeClock(clock);
      const before = table.stamp();
      await db.insertInto('notes').values({ id: 1, body: 'elsewhere' }).execute();
      now += 10 * OTHER_WRITERS_WINDOW_MS;
      expect(table.stamp()).toBe(before);
      table.noteWrite();
      expect(table.stamp()).not.toBe(before);
    });

    it("moves with another process's commit", () => {
      const table = new TableChangeClock(clock);
      const before = table.stamp();
      const other = new DatabaseSync(path);
      other.prepare('insert into notes (id, body) values (8, ?)').run('from elsewhere');
      other.close();
      now += OTHER_WRITERS_WINDOW_MS;
      expect(table.stamp()).not.toBe(before);
    });
  });
});

describe('NO_CHANGE_CLOCK', () => {
  it('makes a table clock that lets nothing be reused', () => {
    expect(new TableChangeClock(NO_CHANGE_CLOCK).stamp()).toBeUndefined();
  });

  it('never lets a read be reused', () => {
    expect(NO_CHANGE_CLOCK.stamp()).toBeUndefined();
  });
});
