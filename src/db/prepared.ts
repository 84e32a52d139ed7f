import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/**
 * What a parameter is while the query is built: NUL-delimited (NUL never reaches a query from
 * outside: the edges refuse it, and stores refuse names containing it, so no real value can be
 * mistaken for one), mixed-case and space-padded, so that changing case or trimming it while
 * building changes it and is caught.
 */
function standIn(name: string): string {
  return ` \u0000Kiln-Slot:${name}\u0000 `;
}

type Binder<P> = (params: P) => unknown;

/**
 * Runs compiled SQL at once and returns its rows, or undefined when it cannot now. SQLite is
 * synchronous, so outside a transaction a query needs none of the connection hand-over Kysely
 * makes for every query (a lock, a release and their promises): under load that hand-over cost
 * a hot lookup two to three times what the statement itself did.
 */
export type DirectRunner = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;

const directRunners = new WeakMap<object, DirectRunner>();

/** Lets prepared queries on `db` run through `runner` when it can (database.ts, for SQLite). */
export function runDirectly(db: object, runner: DirectRunner): void {
  directRunners.set(db, runner);
}

/** Whatever can run a compiled query: the database or a transaction, of any schema. */
type Executor = Pick<Kysely<unknown>, 'executeQuery'>;

type Template<P, Row> = {
  readonly compiled: CompiledQuery<Row>;
  readonly binders: readonly Binder<P>[];
};

/**
 * A query built and compiled to SQL once, then run with new values. Building a Kysely query and
 * compiling it costs 3–20 µs every time (measured on a repository lookup with its owner join),
 * a real share of a request that costs 30; a hot lookup pays it once per process instead.
 *
 * `build` gets stand-ins for the parameters, typed as the values they stand for. Each must be
 * used as a whole value that becomes a bound parameter: not transformed while building (call
 * `toLowerCase()` before running, not inside), not tested (`p.x ?? null` picks one branch for
 * good), not spread into a list, not written into SQL text. The first run throws when a stand-in
 * was written into the SQL, went missing, or was changed (case, trimming, slicing, joining);
 * a transformation that leaves a string as it is cannot be seen and is the caller's to avoid.
 *
 * @example
 * const byUuid = prepared(db, (p: { uuid: string }) =>
 *   db.selectFrom('runners').selectAll().where('uuid', '=', p.uuid),
 * );
 * const [row] = await byUuid({ uuid });
 */
export function prepared<P extends Record<string, unknown>, Row>(
  db: Executor,
  build: (params: P) => Compilable<Row>,
): (params: P) => Promise<Row[]> {
  let template: Template<P, Row> | undefined;
  // Only the database itself has one: a transaction's queries always go through Kysely.
  const direct = directRunners.get(db);
  return async (params) => {
    template ??= compileTemplate(build);
    const parameters = template.binders.map((bind) => bind(params));
    const rows = direct?.(template.compiled.sql, parameters);
    if (rows !== undefined) return rows as Row[];
    const result = await db.executeQuery<Row>({
      ...template.compiled,
      parameters,
    });
    return result.rows;
  };
}

function compileTemplate<P extends Record<string, unknown>, Row>(
  build: (params: P) => Compilable<Row>,
): Template<P, Row> {
  /** Stand-in → parameter name, for every parameter `build` read. */
  const used = new Map<string, string>();
  const standIns = new Proxy({} as P, {
    get: (_target, name) => {
      if (typeof name !== 'string') return undefined;
      const value = standIn(name);
      used.set(value, name);
      return value;
    },
  });
  const compiled = build(standIns).compile();
  if (compiled.sql.includes('\u0000')) {
    throw new Error('prepared query: a parameter was written into the SQL text');
  }
  const bound = new Set<string>();
  const binders = compiled.parameters.map((value): Binder<P> => {
    // Query text never holds NUL, so any string with one came from a stand-in.
    if (typeof value !== 'string' || !value.includes('\u0000')) return () => value;
    const name = used.get(value);
    if (name === undefined)
      throw new Error('prepared query: a parameter was altered while building');
    bound.add(name);
    return (params) => params[name];
  });
  for (const name of used.values()) {
    if (!bound.has(name)) throw new Error(`prepared query: parameter ${name} is not bound`);
  }
  return { compiled, binders };
}
