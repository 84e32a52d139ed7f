import type { Kysely } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

/** One forward-only schema change. `up` gets the engine so it can pick engine-specific types. */
export type Migration = {
  readonly name: string;
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
};
