import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './database.ts';
import { appliedMigrations, readTableFacts, type TableFacts } from './schema-facts.ts';
import type { Tables } from './tables.ts';

/**
 * Every row of every table, read in one consistent snapshot and written back on either engine.
 * Rows travel as plain JSON objects (column → value); the few values JSON cannot carry are
 * tagged (`{"$base64": …}` for bytes), and booleans are whatever the source engine stored
 * (SQLite's 0/1 or true/false): the writer turns them into what the target column takes.
 */

export type Row = Record<string, unknown>;

/** What a snapshot holds besides the rows: enough to rebuild the schema and its counters. */
export type SnapshotFacts = {
  readonly dialect: Database['dialect'];
  readonly migrations: readonly string[];
  /** Table → the last value its engine-numbered column handed out (never reused after). */
  readonly sequences: Readonly<Record<string, number>>;
  readonly tables: readonly { readonly name: string; readonly rows: number }[];
};

const PAGE = 1000;

/** A row value as JSON can hold it. */
export function encodeValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return { $base64: Buffer.from(value).toString('base64') };
  if (typeof value === 'bigint') return Number(value);
  return value;
}

function decodeValue(value: unknown, boolean: boolean): unknown {
  if (value && typeof value === 'object' && '$base64' in value) {
    return Buffer.from(String((value as { $base64: unknown }).$base64), 'base64');
  }
  if (boolean && typeof value === 'number') return value !== 0;
  return value;
}

/**
 * A table's rows in rowid order, a page at a time. The page's last rowid comes from a second,
 * index-only query rather than from a column of the rows, which would have to be taken out of
 * every row again (a copy of each row: a fifth of a dump's time spent on rows).
 */
async function* sqliteRows(trx: Transaction<Tables>, table: string): AsyncGenerator<Row> {
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const page = await sql<Row>`select * from ${sql.table(table)}
      where rowid > ${after} order by rowid limit ${PAGE}`.execute(trx);
    yield* page.rows;
    if (page.rows.length < PAGE) return;
    const last = await sql<{ last: number }>`select max(rowid) as "last" from (select rowid
      from ${sql.table(table)} where rowid > ${after} order by rowid limit ${PAGE})`.execute(trx);
    after = Number(last.rows[0]?.last);
  }
}

async function* postgresRows(trx: Transaction<Tables>, table: string): AsyncGenerator<Row> {
  await sql`declare kiln_dump cursor for select * from ${sql.table(table)}`.execute(trx);
  try {
    for (;;) {
      const page = await sql<Row>`fetch ${sql.raw(String(PAGE))} from kiln_dump`.execute(trx);
      yield* page.rows;
      if (page.rows.length < PAGE) return;
    }
  } finally {
    await sql`close kiln_dump`.execute(trx);
  }
}

async function readSequences(
  trx: Transaction<Tables>,
  database: Database,
  tables: readonly TableFacts[],
): Promise<Record<string, number>> {
  const sequences: Record<string, number> = {};
  if (database.dialect === 'sqlite') {
    const stored = await sql<Row>`select name, seq from sqlite_sequence`
      .execute(trx)
      .catch(() => ({ rows: [] as Row[] }));
    for (const row of stored.rows) sequences[String(row.name)] = Number(row.seq);
    return sequences;
  }
  for (const table of tables) {
    if (!table.generated) continue;
    const last = await sql<{ value: number | null }>`select pg_sequence_last_value(
        pg_get_serial_sequence(${table.name}, ${table.generated})::regclass) as value`.execute(trx);
    const value = last.rows[0]?.value;
    if (value !== null && value !== undefined) sequences[table.name] = Number(value);
  }
  return sequences;
}

/**
 * Reads every table inside one read-only snapshot (SQLite: one read transaction, which WAL keeps
 * consistent while other processes write; PostgreSQL: REPEATABLE READ), handing each table's
 * rows to `visit` in an order a restore can insert them in.
 */
export async function readSnapshot(
  database: Database,
  visit: (table: string, rows: AsyncIterable<Row>) => Promise<number>,
): Promise<SnapshotFacts> {
  const migrations = await appliedMigrations(database);
  const tables = await readTableFacts(database);
  const builder =
    database.dialect === 'postgres'
      ? database.db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only')
      : database.db.transaction();
  return builder.execute(async (trx) => {
    const counted: { name: string; rows: number }[] = [];
    for (const table of tables) {
      const rows =
        database.dialect === 'postgres'
          ? postgresRows(trx, table.name)
          : sqliteRows(trx, table.name);
      counted.push({ name: table.name, rows: await visit(table.name, rows) });
    }
    const sequences = await readSequences(trx, database, tables);
    return { dialect: database.dialect, migrations, sequences, tables: counted };
  });
}

/** Rows of a table that references itself, ordered so that every referenced row comes first. */
function parentsFirst(rows: Row[], facts: TableFacts): Row[] {
  const selfKeys = facts.foreignKeys.filter((key) => key.table === facts.name);
  if (selfKeys.length === 0) return rows;
  const ordered: Row[] = [];
  const present = new Set<unknown>();
  let pending = rows;
  while (pending.length > 0) {
    const next: Row[] = [];
    for (const row of pending) {
      const ready = selfKeys.every((k) => row[k.column] == null || present.has(row[k.column]));
      if (ready) {
        ordered.push(row);
        for (const key of selfKeys) present.add(row[key.to]);
      } else {
        next.push(row);
      }
    }
    // A cycle (or a reference to a row that is gone) cannot be ordered: insert the rest as they
    // are and let the database say which constraint fails.
    if (next.length === pending.length) return [...ordered, ...next];
    pending = next;
  }
  return ordered;
}

async function insertRows(
  trx: Kysely<Tables>,
  database: Database,
  facts: TableFacts,
  rows: readonly Row[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const overriding =
    database.dialect === 'postgres' && facts.generated ? sql` overriding system value` : sql``;
  const values = rows.map(
    (row) => sql`(${sql.join(columns.map((c) => decodeValue(row[c], facts.booleans.has(c))))})`,
  );
  await sql`insert into ${sql.table(facts.name)} (${sql.join(columns.map((c) => sql.ref(c)))})${overriding}
    values ${sql.join(values)}`.execute(trx);
}

async function restoreSequences(
  trx: Kysely<Tables>,
  database: Database,
  sequences: Readonly<Record<string, number>>,
  tables: ReadonlyMap<string, TableFacts>,
): Promise<void> {
  for (const [table, value] of Object.entries(sequences)) {
    const facts = tables.get(table);
    if (!facts?.generated) continue;
    if (database.dialect === 'sqlite') {
      await sql`delete from sqlite_sequence where name = ${table}`.execute(trx);
      await sql`insert into sqlite_sequence (name, seq) values (${table}, ${value})`.execute(trx);
    } else {
      await sql`select setval(pg_get_serial_sequence(${table}, ${facts.generated}), ${value}, true)`.execute(
        trx,
      );
    }
  }
}

/**
 * Writes a snapshot's tables into a database whose schema is at the snapshot's migration, in one
 * transaction: either every row arrives, or none. `tables` must come in the order the snapshot
 * was taken (referenced tables first). `finish` is told how many rows each table received and
 * answers the sequence values to restore; it may throw to roll everything back.
 */
export async function writeSnapshot(
  database: Database,
  tables: AsyncIterable<{ name: string; rows: AsyncIterable<Row> }>,
  finish: (written: Readonly<Record<string, number>>) => Promise<Readonly<Record<string, number>>>,
): Promise<Record<string, number>> {
  const facts = new Map((await readTableFacts(database)).map((t) => [t.name, t]));
  return database.db.transaction().execute(async (trx) => {
    const written: Record<string, number> = {};
    for await (const table of tables) {
      const target = facts.get(table.name);
      if (!target) throw new Error(`the dump holds a table this schema lacks: ${table.name}`);
      // Rows the database made itself while earlier tables arrived are replaced by the dump's.
      await sql`delete from ${sql.table(table.name)}`.execute(trx);
      const selfReferencing = target.foreignKeys.some((key) => key.table === target.name);
      let batch: Row[] = [];
      let count = 0;
      for await (const row of table.rows) {
        batch.push(row);
        count += 1;
        if (!selfReferencing && batch.length >= 200) {
          await insertRows(trx, database, target, batch);
          batch = [];
        }
      }
      const rest = selfReferencing ? parentsFirst(batch, target) : batch;
      for (let i = 0; i < rest.length; i += 200) {
        await insertRows(trx, database, target, rest.slice(i, i + 200));
      }
      written[table.name] = count;
    }
    await restoreSequences(trx, database, await finish(written), facts);
    return written;
  });
}
