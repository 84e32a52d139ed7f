import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, type MigrationResultSet, Migrator, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { MeasuredCache } from '../lib/cache-registry.ts';
import { type ChangeClock, SqliteChangeClock } from './change-clock.ts';
import { ensureChangeNotices } from './change-notices.ts';
import type { Dialect } from './migration.ts';
import { migrationNames } from './migrations/names.ts';
import { CHANGE_LISTENER_NAME, PostgresChangeClock } from './postgres-change-clock.ts';
import { poolNotingWrites } from './postgres-writes.ts';
import { runDirectly } from './prepared.ts';
import { appliedMigrations } from './schema-facts.ts';
import { NodeSqliteDialect, openSqlite } from './sqlite-adapter.ts';
import type { Tables } from './tables.ts';

export type Db = Kysely<Tables>;

export type Database = {
  readonly db: Db;
  readonly dialect: Dialect;
  /** Whether anything may have been written since a given read (see change-clock.ts). */
  readonly changes: ChangeClock;
  /**
   * Whether a row that existed may have been altered or removed since a given read; inserts of
   * other rows leave it still on SQLite (see `SqliteChangeClock.rows`). On PostgreSQL it is
   * `changes`, whose notices do not say what a write did.
   */
  readonly rowChanges: ChangeClock;
  /** SQLite's compiled statements, kept by SQL text; PostgreSQL keeps none in this process. */
  readonly statements?: MeasuredCache;
  /** Cheap round trip for health checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
};

export type DatabaseOptions = {
  /** A `postgres://` URL selects PostgreSQL; otherwise SQLite at `<dataDir>/kiln.db`. */
  databaseUrl: string | undefined;
  /** PostgreSQL: where the change clock listens; the database URL when unset. */
  listenUrl?: string | undefined;
  dataDir: string;
  poolSize?: number;
};

/**
 * pg returns int8 as strings; every int8 Kiln stores (epoch milliseconds, counts) fits in 2^53,
 * so they are read as numbers.
 */
function readInt8AsNumber(types: typeof pg.types) {
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === types.builtins.INT8) return (value: string) => Number(value);
      return types.getTypeParser(oid, format);
    },
  };
}

/**
 * Opens the configured engine. Call `migrate` before first use. The PostgreSQL driver is loaded
 * only when it is configured: a SQLite installation never holds it in memory.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      types: readInt8AsNumber(pg.types),
    });
    // An idle client's connection error must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    const changes = new PostgresChangeClock({
      connect: async () => {
        const client = new pg.Client({
          connectionString: options.listenUrl ?? options.databaseUrl,
          keepAlive: true,
          application_name: CHANGE_LISTENER_NAME,
        });
        // Until the clock's own handler is on, an early error is the failed connect's to tell.
        client.on('error', () => {});
        await client.connect();
        return client;
      },
    });
    const db = new Kysely<Tables>({
      dialect: new PostgresDialect({ pool: poolNotingWrites(pool, () => changes.noteWrite()) }),
    });
    return {
      db,
      dialect: 'postgres',
      changes,
      rowChanges: changes,
      ping: async () => {
        await pool.query('select 1');
      },
      close: async () => {
        await changes.close();
        await db.destroy();
      },
    };
  }
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const path = join(options.dataDir, 'kiln.db');
  const changes = new SqliteChangeClock(path);
  const sqlite = openSqlite({ path, onWrite: (kind) => changes.noteWrite(kind) });
  changes.observeOthersThrough(() => sqlite.dataVersion());
  const db = new Kysely<Tables>({ dialect: new NodeSqliteDialect(sqlite) });
  runDirectly(db, sqlite.runNow);
  return {
    db,
    dialect: 'sqlite',
    changes,
    rowChanges: changes.rows,
    statements: sqlite.statements,
    ping: async () => {
      sqlite.prepare('select 1').all([]);
    },
    close: async () => {
      await db.destroy();
      changes.close();
    },
  };
}

/** The database was migrated by a newer Kiln than this one: running on would corrupt it. */
export class DatabaseNewerError extends Error {
  readonly unknown: readonly string[];

  constructor(unknown: readonly string[]) {
    super(
      `the database was migrated by a newer version of Kiln (it has migration ${unknown.join(', ')}, which this version does not know): run that version or a newer one`,
    );
    this.unknown = unknown;
  }
}

/** Kysely's migrator over every migration, which it loads: only when one is to be applied. */
async function migrator(database: Database): Promise<Migrator> {
  const { migrations } = await import('./migrations/index.ts');
  return new Migrator({
    db: database.db as Kysely<unknown>,
    migrationTableName: 'kiln_migrations',
    migrationLockTableName: 'kiln_migrations_lock',
    provider: {
      getMigrations: async () =>
        Object.fromEntries(
          migrations.map((migration) => [
            migration.name,
            { up: (db: Kysely<unknown>) => migration.up(db, database.dialect) },
          ]),
        ),
    },
  });
}

/** Refuses a database that has migrations this version does not know; else what it has applied. */
async function refuseNewerDatabase(database: Database): Promise<Set<string>> {
  const known = new Set(migrationNames());
  const applied = await appliedMigrations(database);
  const unknown = applied.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new DatabaseNewerError(unknown);
  return new Set(applied);
}

/**
 * Applies every pending migration; safe to run from several processes at once. Refuses, with one
 * line, a database that a newer Kiln has migrated.
 */
export async function migrate(database: Database): Promise<MigrationResultSet> {
  const applied = await refuseNewerDatabase(database);
  // Kysely's migrator sorts the names with localeCompare, whose first use loads ICU's collation
  // data for good (about 3 MB of an idle server), and the migrations are modules of their own:
  // a start with nothing to apply loads neither.
  const pending = migrationNames().some((name) => !applied.has(name));
  const result: MigrationResultSet = pending
    ? await (await migrator(database)).migrateToLatest()
    : { results: [] };
  if (result.error) throw result.error;
  await ensureChangeNotices(database);
  return result;
}

/** Applies migrations up to and including `name` (a restore rebuilds a dump's schema so). */
export async function migrateTo(database: Database, name: string): Promise<MigrationResultSet> {
  await refuseNewerDatabase(database);
  const result = await (await migrator(database)).migrateTo(name);
  if (result.error) throw result.error;
  return result;
}

/** The names of every migration this version knows, in order. */
export function knownMigrations(): string[] {
  return migrationNames();
}
