import { type Kysely, sql } from 'kysely';
import type { Tables } from '../../db/tables.ts';

/** Queries over `ci_tasks_versions`: one counter per runner scope (see tasks-version.ts). */
export class TasksVersionStore {
  readonly #db: Kysely<Tables>;

  /** `db` may be a transaction: a bump then commits with the jobs that caused it. */
  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** Moves each scope's counter on by one (a missing counter starts at 2: 1 is the default). */
  async bump(scopes: readonly string[]): Promise<void> {
    for (const scope of scopes) {
      await this.#db
        .insertInto('ci_tasks_versions')
        .values({ scope, version: 2 })
        .onConflict((oc) =>
          oc.column('scope').doUpdateSet({ version: sql`ci_tasks_versions.version + 1` }),
        )
        .execute();
    }
  }

  /** The stored counter of a scope, or undefined when it never moved. */
  async find(scope: string): Promise<number | undefined> {
    const row = await this.#db
      .selectFrom('ci_tasks_versions')
      .select('version')
      .where('scope', '=', scope)
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.version);
  }
}
