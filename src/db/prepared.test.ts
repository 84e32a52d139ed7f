import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepared } from './prepared.ts';
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
