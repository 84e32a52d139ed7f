import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  NO_CHANGE_CLOCK,
  OTHER_WRITERS_WINDOW_MS,
  SqliteChangeClock,
  TABLES_WITH_INSERT_TRIGGERS,
  TableChangeClock,
  writeKind,
} from './change-clock.ts';
import { migrate, openDatabase } from './database.ts';
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
    const sqlite = openSqlite({ path, onWrite: (kind) => clock.noteWrite(kind) });
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

  describe('rows', () => {
    it("holds through this process's plain inserts and moves with its other writes", async () => {
      const before = clock.rows.stamp();
      await db.insertInto('notes').values({ id: 1, body: 'a' }).execute();
      await db.insertInto('notes').values({ id: 2, body: 'b' }).returningAll().execute();
      expect(clock.rows.stamp()).toBe(before);
      const stamps = [before];
      await db.updateTable('notes').set({ body: 'c' }).where('id', '=', 1).execute();
      stamps.push(clock.rows.stamp());
      await db
        .insertInto('notes')
        .values({ id: 2, body: 'd' })
        .onConflict((c) => c.column('id').doUpdateSet({ body: 'd' }))
        .execute();
      stamps.push(clock.rows.stamp());
      await sql`insert or replace into notes (id, body) values (2, 'e')`.execute(db);
      stamps.push(clock.rows.stamp());
      await db.deleteFrom('notes').where('id', '=', 2).execute();
      stamps.push(clock.rows.stamp());
      expect(new Set(stamps).size).toBe(stamps.length);
    });

    it("moves with another process's commit, inserts included", () => {
      const before = clock.rows.stamp();
      const other = new DatabaseSync(path);
      other.prepare('insert into notes (id, body) values (9, ?)').run('from elsewhere');
      other.close();
      now += OTHER_WRITERS_WINDOW_MS;
      expect(clock.rows.stamp()).not.toBe(before);
    });

    it('never holds still while a row that existed has changed, whatever the writes', async () => {
      // A table whose inserts change other rows through a trigger, as migration 0007's does.
      const [counted] = [...TABLES_WITH_INSERT_TRIGGERS];
      await sql
        .raw(`create table ${counted} (id integer primary key);
              create trigger ${counted}_touch after insert on ${counted}
              begin update notes set body = body || '+'; end`)
        .execute(db);
      const write = fc.oneof(
        fc.record({ op: fc.constant('insert' as const), id: fc.integer({ min: 1, max: 6 }) }),
        fc.record({ op: fc.constant('update' as const), id: fc.integer({ min: 1, max: 6 }) }),
        fc.record({ op: fc.constant('delete' as const), id: fc.integer({ min: 1, max: 6 }) }),
        fc.record({ op: fc.constant('upsert' as const), id: fc.integer({ min: 1, max: 6 }) }),
        fc.record({ op: fc.constant('counted' as const), id: fc.integer({ min: 1, max: 1e6 }) }),
      );
      const snapshot = async () =>
        new Map((await db.selectFrom('notes').selectAll().execute()).map((n) => [n.id, n.body]));
      await fc.assert(
        fc.asyncProperty(fc.array(write, { maxLength: 12 }), async (writes) => {
          await db.deleteFrom('notes').execute();
          let stamp = clock.rows.stamp();
          let seen = await snapshot();
          for (const { op, id } of writes) {
            const row = { id, body: `${op}${id}` };
            if (op === 'insert')
              await db
                .insertInto('notes')
                .values(row)
                .execute()
                .catch(() => {});
            if (op === 'update')
              await db.updateTable('notes').set(row).where('id', '=', id).execute();
            if (op === 'delete') await db.deleteFrom('notes').where('id', '=', id).execute();
            if (op === 'upsert') {
              await db
                .insertInto('notes')
                .values(row)
                .onConflict((c) => c.column('id').doUpdateSet({ body: `${row.body}!` }))
                .execute();
            }
            if (op === 'counted') {
              await sql`insert or ignore into ${sql.table(counted ?? '')} (id) values (${id})`.execute(
                db,
              );
            }
            const now = await snapshot();
            if (clock.rows.stamp() === stamp) {
              // Held still: every row that was there is there, unchanged.
              for (const [key, body] of seen) expect(now.get(key)).toBe(body);
            }
            stamp = clock.rows.stamp();
            seen = now;
          }
        }),
        { numRuns: 60 },
      );
    });
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

describe('writeKind', () => {
  it.each([
    ['insert into "runners" ("id") values (?)', 'insert'],
    ['  INSERT INTO runners (id) values (?) returning *', 'insert'],
    ['insert into "repositories" ("id") values (?)', 'change'],
    ['insert or replace into "runners" ("id") values (?)', 'change'],
    ['replace into "runners" ("id") values (?)', 'change'],
    ['insert into "runners" ("id") values (?) on conflict ("id") do nothing', 'change'],
    ['update "runners" set "name" = ?', 'change'],
    ['delete from "runners"', 'change'],
    ['with x as (select 1) insert into "runners" select * from x', 'change'],
    ['begin immediate', 'change'],
  ])('calls %j an %s', (text, kind) => {
    expect(writeKind(text)).toBe(kind);
  });

  it('knows every table the migrations give an insert trigger', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kiln-clock-schema-'));
    const database = await openDatabase({ databaseUrl: undefined, dataDir });
    try {
      await migrate(database);
      const triggers = await sql<{ table: string; text: string }>`
        select tbl_name as "table", sql as "text" from sqlite_master where type = 'trigger'`.execute(
        database.db,
      );
      expect(triggers.rows.length).toBeGreaterThan(0);
      for (const { table, text } of triggers.rows) {
        if (/\binsert\s+on\b/i.test(text)) expect(TABLES_WITH_INSERT_TRIGGERS).toContain(table);
      }
      // A constraint that resolves conflicts by REPLACE would let a plain insert delete rows.
      const tables = await sql<{ text: string }>`
        select sql as "text" from sqlite_master where type = 'table' and sql is not null`.execute(
        database.db,
      );
      for (const { text } of tables.rows) expect(text).not.toMatch(/on\s+conflict\s+replace/i);
    } finally {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
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
