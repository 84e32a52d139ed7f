import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  SqliteDialect,
  SqliteDriver,
  type SqliteStatement,
} from 'kysely';
import { BoundedMap } from '../lib/bounded-map.ts';
import type { MeasuredCache } from '../lib/cache-registry.ts';
import { type WriteKind, writeKind } from './change-clock.ts';

/** Values node:sqlite can bind: it has no booleans, so they become 1/0 as SQLite stores them. */
function toSqlite(value: unknown): SQLInputValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'bigint' ||
    value instanceof Uint8Array
  ) {
    return value;
  }
  if (value instanceof Date) return value.getTime();
  throw new TypeError(`cannot bind a ${typeof value} to SQLite`);
}

/**
 * Kysely's SQLite dialect speaks to a better-sqlite3-shaped object; node:sqlite differs in two
 * ways: statements take spread parameters, and they have no `reader` flag (a statement that
 * returns columns is a reader).
 */
function adaptStatement(statement: StatementSync): SqliteStatement {
  return {
    reader: statement.columns().length > 0,
    all: (parameters) => statement.all(...parameters.map(toSqlite)),
    run: (parameters) => statement.run(...parameters.map(toSqlite)),
    iterate: (parameters) => statement.iterate(...parameters.map(toSqlite)),
  };
}

/** A statement that can only read. Anything else (writes, BEGIN, COMMIT, PRAGMA) may change data. */
const PLAIN_SELECT = /^\s*select\b/i;

/** The statement, telling `written` each time it has run. */
function reportingWrites(statement: SqliteStatement, written: () => void): SqliteStatement {
  return {
    reader: statement.reader,
    all: (parameters) => {
      try {
        return statement.all(parameters);
      } finally {
        written();
      }
    },
    run: (parameters) => {
      try {
        return statement.run(parameters);
      } finally {
        written();
      }
    },
    // Kysely streams only SELECTs; a write run this way is reported when it starts.
    iterate: (parameters) => {
      written();
      return statement.iterate(parameters);
    },
  };
}

const STATEMENT_CACHE_SIZE = 500;
const WAL_CHECKPOINT_PAGES = 4000;

export type SqliteOptions = {
  path: string;
  busyTimeoutMs?: number;
  /**
   * Called after every statement that may have written, with what it may have done to rows that
   * existed (see change-clock.ts).
   */
  onWrite?: (kind: WriteKind) => void;
};

/** The open file, as Kysely speaks to it, and what only this connection can tell. */
export type OpenSqlite = SqliteDatabase & {
  /** `PRAGMA data_version` here: moves on other connections' commits, never on this one's. */
  dataVersion(): number;
  /**
   * Runs a compiled query at once and returns its rows (none for a write), or undefined while a
   * transaction is open on the connection: the query must then wait its turn behind it.
   */
  runNow(sql: string, parameters: readonly unknown[]): unknown[] | undefined;
  /** The compiled statements kept by their SQL text, for the process's cache registry. */
  readonly statements: MeasuredCache;
};

/** Opens the file with WAL, foreign keys and a busy timeout, as every Kiln process expects. */
export function openSqlite(options: SqliteOptions): OpenSqlite {
  const database = new DatabaseSync(options.path, { enableForeignKeyConstraints: true });
  database.exec(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 10_000)}`);
  database.exec('PRAGMA journal_mode = WAL');
  database.exec('PRAGMA synchronous = NORMAL');
  database.exec('PRAGMA foreign_keys = ON');
  // SQLite copies the WAL back into the database, with two fsyncs, whenever the WAL passes this
  // many pages (default 1000, 4 MB). Every commit of a write-heavy burst (a fleet of runners
  // registering) then paid for frequent checkpoints that copy the same hot pages again and again;
  // at 4000 pages an insert measured 31 µs of CPU instead of 46. The WAL file stays near 16 MB.
  database.exec(`PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  // Kysely asks to prepare every query it runs; the texts repeat, so keep the compiled
  // statements (bounded, oldest dropped first) instead of parsing the same SQL again.
  const statements = new BoundedMap<string, SqliteStatement>(STATEMENT_CACHE_SIZE);
  const dataVersion = database.prepare('PRAGMA data_version');
  const prepare = (sql: string): SqliteStatement => {
    const cached = statements.get(sql);
    if (cached) return cached;
    const adapted = adaptStatement(database.prepare(sql));
    const onWrite = options.onWrite;
    let statement = adapted;
    if (onWrite && !PLAIN_SELECT.test(sql)) {
      // Classified once per text: the statement cache makes this free for every later run.
      const kind = writeKind(sql);
      statement = reportingWrites(adapted, () => onWrite(kind));
    }
    statements.set(sql, statement);
    return statement;
  };
  return {
    dataVersion: () => Number(dataVersion.get()?.data_version),
    close: () => {
      statements.clear();
      database.close();
    },
    prepare,
    statements,
    runNow: (sql, parameters) => {
      // Inside a transaction (Kysely holds the connection from BEGIN to COMMIT across awaits)
      // a query run now would join it: it must go through Kysely and wait instead.
      if (database.isTransaction) return undefined;
      const statement = prepare(sql);
      if (statement.reader) return statement.all(parameters) as unknown[];
      statement.run(parameters);
      return [];
    },
  };
}

/**
 * Transactions start with BEGIN IMMEDIATE: the write lock is taken up front, so two processes
 * on one file wait on the busy timeout instead of deadlocking when both try to upgrade a read.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class NodeSqliteDialect extends SqliteDialect {
  readonly #database: SqliteDatabase;

  constructor(database: SqliteDatabase) {
    super({ database });
    this.#database = database;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.#database });
  }
}
