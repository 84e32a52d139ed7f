import {
  type Expression,
  type ExpressionBuilder,
  expressionBuilder,
  type Insertable,
  type Kysely,
  type RawBuilder,
  type Selectable,
  type SqlBool,
  sql,
  type Updateable,
} from 'kysely';
import type { Dialect } from './migration.ts';

/** A column of table `T`. */
type Column<DB, T extends keyof DB> = keyof DB[T] & string;

/** A column a claim may return. */
type Returned<DB, T extends keyof DB> = keyof Selectable<DB[T]> & string;

/** A condition on the rows of table `T`, written with Kysely's expression builder. */
export type RowCondition<DB, T extends keyof DB> = (
  eb: ExpressionBuilder<DB, T>,
) => Expression<SqlBool>;

/**
 * Where a lease queue keeps its rows: one row per piece of work, held by whoever's lease
 * (an epoch-ms column) runs; a row whose lease is empty or past is free to claim.
 */
export type LeaseQueueShape<DB, T extends keyof DB & string> = {
  readonly table: T;
  /** The column that names a row. */
  readonly key: Column<DB, T>;
  /** Epoch ms until which the row is held. */
  readonly lease: Column<DB, T>;
  /** What the lease column holds when nobody holds the row: null, or 0 where it may not be. */
  readonly freeLease: null | 0;
  /** Epoch ms from which the row is due; rows are claimed oldest due first. */
  readonly due?: Column<DB, T>;
  /** A counter every claim adds one to. */
  readonly attempts?: Column<DB, T>;
  /** What else makes a row claimable (its state, say); a claim re-checks it with the lease. */
  readonly claimable?: RowCondition<DB, T>;
};

/** What one claim writes and returns. */
export type ClaimOptions<DB, T extends keyof DB, C extends Returned<DB, T>> = {
  readonly now: number;
  /** The lease runs until `now + leaseMs`. */
  readonly leaseMs: number;
  /** Columns the claim writes besides the lease (the holder, a status). */
  readonly set?: Updateable<DB[T]>;
  /** Columns to return; every column when left out. */
  readonly returning?: readonly C[];
};

/**
 * The one implementation of a lease queue over a database table, on SQLite and PostgreSQL.
 *
 * The invariant — *of any number of processes claiming at once, at most one holds a row until
 * its lease runs out* — rests on every claim being a single statement whose condition re-checks
 * that the row is free on the row it writes: PostgreSQL re-evaluates an UPDATE's condition
 * after taking the row lock (and an upsert's `DO UPDATE … WHERE` likewise), and SQLite runs
 * each statement under its one write lock. On PostgreSQL the rows a batch claim picks are also
 * locked `FOR UPDATE SKIP LOCKED`, so racing replicas take different rows instead of queueing
 * behind the same ones. A holder that dies holds nothing once its lease ends: the row is free
 * again, and what that means (claimed anew, or failed by a sweep) is the user's to decide.
 */
export class LeaseQueue<DB, T extends keyof DB & string> {
  readonly #db: Kysely<DB>;
  readonly #shape: LeaseQueueShape<DB, T>;
  readonly #skipLocked: boolean;

  constructor(db: Kysely<DB>, shape: LeaseQueueShape<DB, T>, dialect: Dialect = 'sqlite') {
    this.#db = db;
    this.#shape = shape;
    this.#skipLocked = dialect === 'postgres';
  }

  /** Claims up to `limit` free rows that are due at `now`, the oldest due first. */
  async claimDue<C extends Returned<DB, T> = Returned<DB, T>>(
    limit: number,
    options: ClaimOptions<DB, T, C>,
  ): Promise<Pick<Selectable<DB[T]>, C>[]> {
    const { table, key, due } = this.#shape;
    const pickable = sql.join(
      [this.#free(options.now), ...(due ? [sql`${sql.ref(due)} <= ${options.now}`] : [])],
      sql` and `,
    );
    const lock = this.#skipLocked ? sql` for update skip locked` : sql``;
    const pick = sql`select ${sql.ref(key)} from ${sql.table(table)} where ${pickable}
      order by ${sql.ref(due ?? key)} limit ${limit}${lock}`;
    const result = await sql<Pick<Selectable<DB[T]>, C>>`
      update ${sql.table(table)} set ${this.#assignments(options)}
      where ${sql.ref(key)} in (${pick}) and ${this.#free(options.now)}
      returning ${this.#returning(options.returning)}`.execute(this.#db);
    return result.rows;
  }

  /**
   * Claims the row named `key` if it is free (and `where` holds of it); undefined otherwise.
   * With `create`, a missing row is inserted with those columns and claimed in the same
   * statement (an upsert), so the first claim of a key needs no row made beforehand.
   */
  async claimKey<C extends Returned<DB, T> = Returned<DB, T>>(
    key: string | number,
    options: ClaimOptions<DB, T, C> & {
      readonly where?: RowCondition<DB, T>;
      readonly create?: Partial<Insertable<DB[T]>>;
    },
  ): Promise<Pick<Selectable<DB[T]>, C> | undefined> {
    const { table } = this.#shape;
    const returning = this.#returning(options.returning);
    if (options.create !== undefined) return this.#upsert(key, options, returning);
    const conditions = [this.#free(options.now)];
    if (options.where) conditions.push(sql`${options.where(expressionBuilder<DB, T>())}`);
    const result = await sql<Pick<Selectable<DB[T]>, C>>`
      update ${sql.table(table)} set ${this.#assignments(options)}
      where ${sql.ref(this.#shape.key)} = ${key} and ${sql.join(conditions, sql` and `)}
      returning ${returning}`.execute(this.#db);
    return result.rows[0];
  }

  /**
   * Frees the row named `key`, writing `set` with it, while `where` holds of it (the holder's
   * own claim, typically: once its lease ran out another process may hold the row). Whether a
   * row was freed.
   */
  async release(
    key: string | number,
    options: { readonly where?: RowCondition<DB, T>; readonly set?: Updateable<DB[T]> } = {},
  ): Promise<boolean> {
    const { table, lease, freeLease } = this.#shape;
    const assignments = [sql`${sql.ref(lease)} = ${freeLease}`, ...this.#set(options.set)];
    const guard = options.where ? sql` and ${options.where(expressionBuilder<DB, T>())}` : sql``;
    const result = await sql`
      update ${sql.table(table)} set ${sql.join(assignments)}
      where ${sql.ref(this.#shape.key)} = ${key}${guard}
      returning ${sql.ref(this.#shape.key)}`.execute(this.#db);
    return result.rows.length > 0;
  }

  /** Removes the row named `key`: its work is done. */
  async remove(key: string | number): Promise<void> {
    await sql`delete from ${sql.table(this.#shape.table)} where ${sql.ref(this.#shape.key)} = ${key}`.execute(
      this.#db,
    );
  }

  async #upsert<C extends Returned<DB, T>>(
    key: string | number,
    options: ClaimOptions<DB, T, C> & { readonly create?: Partial<Insertable<DB[T]>> },
    returning: RawBuilder<unknown>,
  ): Promise<Pick<Selectable<DB[T]>, C> | undefined> {
    const { table, lease } = this.#shape;
    const claimed: [string, unknown][] = [
      [this.#shape.key, key],
      [lease, options.now + options.leaseMs],
      ...written(options.set),
    ];
    const columns = [...claimed, ...written(options.create)];
    const taken = claimed.slice(1).map(([column]) => {
      return sql`${sql.ref(column)} = excluded.${sql.ref(column)}`;
    });
    // Qualified: inside DO UPDATE a bare name could also mean the row that was not inserted.
    const held = sql.ref(`${table}.${lease}`);
    const result = await sql<Pick<Selectable<DB[T]>, C>>`
      insert into ${sql.table(table)} (${sql.join(columns.map(([column]) => sql.ref(column)))})
      values (${sql.join(columns.map(([, value]) => value))})
      on conflict (${sql.ref(this.#shape.key)}) do update set ${sql.join(taken)}
      where ${held} is null or ${held} <= ${options.now}
      returning ${returning}`.execute(this.#db);
    return result.rows[0];
  }

  /** "Nobody holds the row", with whatever else makes it claimable. */
  #free(now: number): RawBuilder<unknown> {
    const lease = sql.ref(this.#shape.lease);
    const free = sql`(${lease} is null or ${lease} <= ${now})`;
    const { claimable } = this.#shape;
    return claimable ? sql`${free} and ${claimable(expressionBuilder<DB, T>())}` : free;
  }

  #assignments(options: ClaimOptions<DB, T, Returned<DB, T>>): RawBuilder<unknown> {
    const { lease, attempts } = this.#shape;
    return sql.join([
      sql`${sql.ref(lease)} = ${options.now + options.leaseMs}`,
      ...(attempts ? [sql`${sql.ref(attempts)} = ${sql.ref(attempts)} + 1`] : []),
      ...this.#set(options.set),
    ]);
  }

  #set(values: Updateable<DB[T]> | undefined): RawBuilder<unknown>[] {
    return written(values).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  }

  #returning(columns: readonly string[] | undefined): RawBuilder<unknown> {
    return columns ? sql.join(columns.map((column) => sql.ref(column))) : sql`*`;
  }
}

/** The columns an object of values writes: those it sets, leaving out the ones left undefined. */
function written(values: object | undefined): [string, unknown][] {
  return Object.entries(values ?? {}).filter(([, value]) => value !== undefined);
}
