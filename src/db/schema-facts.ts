import { sql } from 'kysely';
import type { Database } from './database.ts';

/**
 * What a dump and a restore need to know of the live schema, read from the engine itself so
 * that a table added by a later migration is carried without anyone listing it here.
 */

/**
 * Not carried by a dump: Kysely's own bookkeeping (a restore re-creates the schema with
 * migrations instead), and leases that name processes of the instance the dump came from (a
 * restored one starts with none held).
 */
const NOT_DUMPED = new Set(['kiln_migrations', 'kiln_migrations_lock', 'repo_housekeeping']);

/**
 * Tables whose rows the database keeps itself, with triggers (0007-owner-repo-counts): inserting
 * the rows they count fills them again, so a restore writes them last and replaces what the
 * triggers made with what the dump holds.
 */
export const TRIGGER_MAINTAINED_TABLES: ReadonlySet<string> = new Set(['owner_repo_counts']);

export type ForeignKey = { readonly column: string; readonly table: string; readonly to: string };

export type TableFacts = {
  readonly name: string;
  readonly foreignKeys: readonly ForeignKey[];
  /** Columns PostgreSQL declares boolean: SQLite stores them as 0 and 1. */
  readonly booleans: ReadonlySet<string>;
  /** A column the engine numbers itself (SQLite autoincrement, PostgreSQL identity). */
  readonly generated: string | undefined;
};

type Row = Record<string, unknown>;

async function rows(database: Database, query: ReturnType<typeof sql>): Promise<Row[]> {
  return (await query.execute(database.db)).rows as Row[];
}

async function sqliteFacts(database: Database): Promise<TableFacts[]> {
  const tables = await rows(
    database,
    sql`select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' order by rowid`,
  );
  const facts: TableFacts[] = [];
  for (const table of tables) {
    const name = String(table.name);
    const keys = await rows(database, sql`select * from pragma_foreign_key_list(${name})`);
    facts.push({
      name,
      foreignKeys: keys.map((k) => ({
        column: String(k.from),
        table: String(k.table),
        to: String(k.to),
      })),
      booleans: new Set(),
      generated: /autoincrement/i.test(String(table.sql))
        ? String(
            (await rows(database, sql`select name from pragma_table_info(${name}) where pk = 1`))[0]
              ?.name,
          )
        : undefined,
    });
  }
  return facts;
}

async function postgresFacts(database: Database): Promise<TableFacts[]> {
  const tables = await rows(
    database,
    sql`select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`,
  );
  const columns = await rows(
    database,
    sql`select table_name, column_name, data_type, is_identity from information_schema.columns
        where table_schema = current_schema()`,
  );
  const keys = await rows(
    database,
    sql`select kcu.table_name, kcu.column_name, ccu.table_name as ref_table,
               ccu.column_name as ref_column
        from information_schema.table_constraints tc
        join information_schema.key_column_usage kcu
          on kcu.constraint_name = tc.constraint_name and kcu.table_schema = tc.table_schema
        join information_schema.constraint_column_usage ccu
          on ccu.constraint_name = tc.constraint_name and ccu.table_schema = tc.table_schema
        where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = current_schema()`,
  );
  return tables.map((table) => {
    const name = String(table.name);
    const own = columns.filter((c) => c.table_name === name);
    return {
      name,
      foreignKeys: keys
        .filter((k) => k.table_name === name)
        .map((k) => ({
          column: String(k.column_name),
          table: String(k.ref_table),
          to: String(k.ref_column),
        })),
      booleans: new Set(
        own.filter((c) => c.data_type === 'boolean').map((c) => String(c.column_name)),
      ),
      generated: own.find((c) => c.is_identity === 'YES')?.column_name as string | undefined,
    };
  });
}

/**
 * Kiln's tables in an order that inserts every referenced row before the rows that reference it
 * (self-references aside: see `parentsFirst`), with trigger-maintained tables last.
 */
export async function readTableFacts(database: Database): Promise<TableFacts[]> {
  const all =
    database.dialect === 'postgres' ? await postgresFacts(database) : await sqliteFacts(database);
  const facts = all.filter((t) => !NOT_DUMPED.has(t.name));
  const byName = new Map(facts.map((t) => [t.name, t]));
  const ordered: TableFacts[] = [];
  const placed = new Set<string>();
  const visit = (table: TableFacts, path: Set<string>) => {
    if (placed.has(table.name) || path.has(table.name)) return;
    path.add(table.name);
    for (const key of table.foreignKeys) {
      const parent = byName.get(key.table);
      if (parent && parent !== table) visit(parent, path);
    }
    placed.add(table.name);
    ordered.push(table);
  };
  for (const table of facts)
    if (!TRIGGER_MAINTAINED_TABLES.has(table.name)) visit(table, new Set());
  for (const table of facts) if (TRIGGER_MAINTAINED_TABLES.has(table.name)) ordered.push(table);
  return ordered;
}

async function hasMigrationTable(database: Database): Promise<boolean> {
  const found =
    database.dialect === 'postgres'
      ? await rows(database, sql`select to_regclass('kiln_migrations') as name`)
      : await rows(
          database,
          sql`select name from sqlite_master where type = 'table' and name = 'kiln_migrations'`,
        );
  return found.length > 0 && found[0]!.name != null;
}

/** The migrations applied to the database, in order; none for a database Kiln never touched. */
export async function appliedMigrations(database: Database): Promise<string[]> {
  if (!(await hasMigrationTable(database))) return [];
  const applied = await rows(database, sql`select name from kiln_migrations order by name`);
  return applied.map((row) => String(row.name));
}

/** Whether the database holds any table at all: a restore goes only into an empty one. */
export async function hasAnyTable(database: Database): Promise<boolean> {
  const found =
    database.dialect === 'postgres'
      ? await rows(
          database,
          sql`select 1 from information_schema.tables where table_schema = current_schema() limit 1`,
        )
      : await rows(database, sql`select 1 from sqlite_master where type = 'table' limit 1`);
  return found.length > 0;
}
