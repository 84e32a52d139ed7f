import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepared, runDirectly } from './prepared.ts';
import { NodeSqliteDialect, openSqlite } from './sqlite-adapter.ts';

type Schema = { people: { id: number; handle: string; active: boolean } };

describe('prepared', () => {
  let db: Kysely<Schema>;

  beforeEach(async () => {
    db = new Kysely<Schema>({ dialect: new NodeSqliteDialect(openSqlite({ path: ':memory:' })) });
    await sql`create table people (id integer primary key, handle text not null, active integer not null)`.execute(
      db,
    );
    await db
      .insertInto('people')
      .values([
        { id: 1, handle: 'alice', active: true },
        { id: 2, handle: 'bob', active: false },
        { id: 3, handle: 'carol', active: true },
      ])
      .execute();
  });

  afterEach(async () => {
    await db.destroy();
  });

  it('runs one compiled query with each call’s values', async () => {
    const byHandle = prepared(db, (p: { handle: string }) =>
      db.selectFrom('people').select('id').where('handle', '=', p.handle),
    );
    expect(await byHandle({ handle: 'bob' })).toEqual([{ id: 2 }]);
    expect(await byHandle({ handle: 'carol' })).toEqual([{ id: 3 }]);
    expect(await byHandle({ handle: 'nobody' })).toEqual([]);
  });

  it('binds a parameter used twice, mixed with constants, booleans and numbers', async () => {
    const query = prepared(db, (p: { handle: string; active: boolean; above: number }) =>
      db
        .selectFrom('people')
        .select('handle')
        .where((eb) => eb.or([eb('handle', '=', p.handle), eb('handle', '=', 'alice')]))
        .where('active', '=', p.active)
        .where('id', '>', p.above)
        .where('handle', '!=', p.handle)
        .orderBy('id'),
    );
    expect(await query({ handle: 'carol', active: true, above: 0 })).toEqual([{ handle: 'alice' }]);
    expect(await query({ handle: 'carol', active: true, above: 1 })).toEqual([]);
  });

  it('writes through a prepared update', async () => {
    const rename = prepared(db, (p: { id: number; handle: string }) =>
      db.updateTable('people').set({ handle: p.handle }).where('id', '=', p.id),
    );
    await rename({ id: 1, handle: 'alicia' });
    expect(await db.selectFrom('people').select('handle').where('id', '=', 1).execute()).toEqual([
      { handle: 'alicia' },
    ]);
  });

  it('refuses a stand-in altered while building', async () => {
    const alterations = [
      (value: string) => value.toUpperCase(),
      (value: string) => value.toLowerCase(),
      (value: string) => value.trim(),
      (value: string) => `${value}%`,
    ];
    for (const alter of alterations) {
      const query = prepared(db, (p: { handle: string }) =>
        db.selectFrom('people').select('id').where('handle', '=', alter(p.handle)),
      );
      await expect(query({ handle: 'bob' })).rejects.toThrow(/altered/);
    }
  });

  it('refuses a stand-in that did not become a parameter', async () => {
    const written = prepared(db, (p: { column: string }) =>
      db.selectFrom('people').select(sql.raw<number>(p.column).as('x')),
    );
    await expect(written({ column: 'id' })).rejects.toThrow(/SQL text/);
    const dropped = prepared(db, (p: { handle: string }) =>
      db
        .selectFrom('people')
        .select('id')
        .where('handle', '=', p.handle ? 'bob' : 'nobody'),
    );
    await expect(dropped({ handle: 'bob' })).rejects.toThrow(/handle is not bound/);
  });
});

describe('prepared, run directly on SQLite', () => {
  let db: Kysely<Schema>;
  let writes: number;

  beforeEach(async () => {
    writes = 0;
    const sqlite = openSqlite({ path: ':memory:', onWrite: () => writes++ });
    db = new Kysely<Schema>({ dialect: new NodeSqliteDialect(sqlite) });
    runDirectly(db, sqlite.runNow);
    await sql`create table people (id integer primary key, handle text not null, active integer not null)`.execute(
      db,
    );
  });

  afterEach(async () => {
    await db.destroy();
  });

  const queries = () => ({
    byHandle: prepared(db, (p: { handle: string }) =>
      db.selectFrom('people').select('id').where('handle', '=', p.handle),
    ),
    insert: prepared(db, (p: { id: number; handle: string }) =>
      db.insertInto('people').values({ id: p.id, handle: p.handle, active: true }),
    ),
  });

  it('answers as Kysely does, and reports its writes', async () => {
    const { byHandle, insert } = queries();
    const before = writes;
    expect(await insert({ id: 1, handle: 'alice' })).toEqual([]);
    expect(writes).toBe(before + 1);
    expect(await byHandle({ handle: 'alice' })).toEqual([{ id: 1 }]);
    expect(writes).toBe(before + 1);
    await expect(insert({ id: 1, handle: 'again' })).rejects.toThrow(/UNIQUE|PRIMARY KEY/);
  });

  it('waits for an open transaction instead of joining it, committed or rolled back', async () => {
    const { byHandle, insert } = queries();
    for (const outcome of ['commit', 'rollback'] as const) {
      const order: string[] = [];
      let asked: Promise<unknown> | undefined;
      const transaction = db
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto('people').values({ id: 7, handle: 'dave', active: true }).execute();
          // Asked while the transaction holds its row uncommitted.
          asked = byHandle({ handle: 'dave' }).then((rows) => {
            order.push('read');
            return rows;
          });
          await new Promise((resolve) => setTimeout(resolve, 20));
          order.push('end');
          if (outcome === 'rollback') throw new Error('rolled back');
        })
        .catch(() => undefined);
      await transaction;
      expect(await asked).toEqual(outcome === 'commit' ? [{ id: 7 }] : []);
      expect(order).toEqual(['end', 'read']);
      await db.deleteFrom('people').execute();
    }
    // A write asked during a transaction waits too, and lands after it.
    await db.transaction().execute(async (trx) => {
      const written = insert({ id: 8, handle: 'erin' });
      expect(await trx.selectFrom('people').selectAll().execute()).toEqual([]);
      void written;
    });
    expect(await byHandle({ handle: 'erin' })).toEqual([{ id: 8 }]);
  });
});
