import { DatabaseSync, type StatementSync } from 'node:sqlite';

import type { ChangeClock } from '../lib/change-clock.ts';

export { type ChangeClock, NO_CHANGE_CLOCK } from '../lib/change-clock.ts';

/**
 * What a write statement may do to rows that existed before it ran: `insert` only adds rows,
 * `change` may alter or remove some (updates, deletes, upserts, BEGIN, COMMIT, ROLLBACK, DDL).
 */
export type WriteKind = 'insert' | 'change';

/**
 * Tables whose inserts change other rows through a trigger (migration 0007 counts each owner's
 * repositories). An insert into one of them is a `change`; a test keeps this list in step with
 * the triggers the migrations create.
 */
export const TABLES_WITH_INSERT_TRIGGERS: ReadonlySet<string> = new Set(['repositories']);

/** The table of a plain insert; a schema-qualified name (`main.t`) does not match. */
const INSERT_INTO = /^\s*insert\s+into\s+"?([A-Za-z_][A-Za-z0-9_]*)"?[\s(]/i;
const ON_CONFLICT = /\bon\s+conflict\b/i;

/**
 * The kind of a statement that may write, from its SQL. Only a plain `insert into` a table with
 * no insert trigger is an `insert`: `insert or replace` deletes, `on conflict … do update`
 * updates, and anything this cannot read is a `change`.
 */
export function writeKind(sql: string): WriteKind {
  const table = INSERT_INTO.exec(sql)?.[1];
  if (table === undefined || ON_CONFLICT.test(sql)) return 'change';
  return TABLES_WITH_INSERT_TRIGGERS.has(table.toLowerCase()) ? 'change' : 'insert';
}

/**
 * How long a commit by another process (the CLI, a second server on the same file during a
 * restart) may take to move the stamp. This process's own writes move it at once.
 */
export const OTHER_WRITERS_WINDOW_MS = 1;

/**
 * The change clock of a SQLite file. This process's writes tick it as they run (the adapter
 * calls `noteWrite` after every statement that is not a plain SELECT). Other processes' commits
 * are seen through `PRAGMA data_version` on a connection of its own, which changes whenever any
 * other connection commits; asking costs three system calls (SQLite's read lock on the WAL
 * index and a size check), a real share of a request otherwise answered from memory, so it is
 * asked at most once per `OTHER_WRITERS_WINDOW_MS`.
 */
export class SqliteChangeClock implements ChangeClock {
  readonly #path: string;
  readonly #now: () => number;
  /** Opened on first use, once the main connection has made the file and set WAL mode. */
  #connection: { database: DatabaseSync; dataVersion: StatementSync } | undefined;
  #stamp = 0;
  /** This process's writes that may have altered or removed a row (see `rows`). */
  #rowChanges = 0;
  #otherWrites: unknown;
  #askedAt = Number.NEGATIVE_INFINITY;
  #mainDataVersion: (() => number) | undefined;
  #othersVersion: number | undefined;
  #othersSeen = 0;
  #othersAskedAt = Number.NEGATIVE_INFINITY;

  /** `now` is in milliseconds; tests pass their own. */
  constructor(path: string, now: () => number = () => performance.now()) {
    this.#path = path;
    this.#now = now;
  }

  noteWrite(kind: WriteKind = 'change'): void {
    this.#stamp += 1;
    if (kind === 'change') this.#rowChanges += 1;
  }

  /**
   * The clock of rows that already exist: it moves on every write of this process that may alter
   * or remove a row and on any other process's commit, and holds still through this process's
   * plain inserts. For what was read of one row found by a unique key, and only while that row
   * existed (an insert can create a row a miss would have missed): a fleet of runners registering
   * at once then leaves every other runner's row usable.
   */
  readonly rows: ChangeClock = {
    // Both counts only grow, so their sum moves whenever either does.
    stamp: () => this.#rowChanges + this.othersStamp(),
  };

  stamp(): number {
    const now = this.#now();
    if (now - this.#askedAt >= OTHER_WRITERS_WINDOW_MS) {
      // Taken before asking: the answer is at least as new as this moment.
      this.#askedAt = now;
      const otherWrites = this.#open().dataVersion.get()?.data_version;
      if (otherWrites !== this.#otherWrites) {
        this.#otherWrites = otherWrites;
        this.#stamp += 1;
      }
    }
    return this.#stamp;
  }

  /**
   * Lets `othersStamp` ask the main connection: its `PRAGMA data_version` moves on every other
   * connection's commit and never on its own, where this clock's own connection sees both.
   */
  observeOthersThrough(mainDataVersion: () => number): void {
    this.#mainDataVersion = mainDataVersion;
  }

  /**
   * A number that moves when another process may have committed and holds still through this
   * process's own writes (which table clocks count themselves). Without the main connection to
   * ask, it moves with every stamp.
   */
  othersStamp(): number {
    if (!this.#mainDataVersion) return this.stamp();
    const now = this.#now();
    if (now - this.#othersAskedAt >= OTHER_WRITERS_WINDOW_MS) {
      this.#othersAskedAt = now;
      const version = this.#mainDataVersion();
      if (version !== this.#othersVersion) {
        this.#othersVersion = version;
        this.#othersSeen += 1;
      }
    }
    return this.#othersSeen;
  }

  close(): void {
    this.#connection?.database.close();
    this.#connection = undefined;
  }

  #open() {
    if (!this.#connection) {
      const database = new DatabaseSync(this.#path, { readOnly: true });
      this.#connection = { database, dataVersion: database.prepare('PRAGMA data_version') };
    }
    return this.#connection;
  }
}

/**
 * The change clock of tables that, in this process, only one store writes (the store calls
 * `noteWrite` after each of its writes): it moves on those writes and on any other process's
 * commit, and holds still through every other write of this process, so what was read from
 * those tables stays usable while the rest of the database changes. Built on the database's
 * clock: on PostgreSQL, whose notifications do not say which table changed, it is undefined,
 * and every read is fresh.
 */
export class TableChangeClock implements ChangeClock {
  readonly #others: SqliteChangeClock | undefined;
  #writes = 0;

  constructor(database: ChangeClock) {
    this.#others = database instanceof SqliteChangeClock ? database : undefined;
  }

  noteWrite(): void {
    this.#writes += 1;
  }

  stamp(): number | undefined {
    if (!this.#others) return undefined;
    // Both counts only grow, so their sum moves whenever either does.
    return this.#writes + this.#others.othersStamp();
  }
}
