import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** A statement that writes nothing: Kysely's selects, the health check's `select 1`. */
const READ_ONLY = /^\s*select\b/i;

/**
 * The pool Kysely talks to, telling `noteWrite` after every statement that may have written,
 * COMMIT included, once it has finished (failed or not: a failure may still have ended a
 * transaction). A read that began before the write finished was taken at an older stamp, so it
 * is never reused afterwards (see change-clock.ts).
 */
export function poolNotingWrites(pool: pg.Pool, noteWrite: () => void): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      const query = (text: unknown, parameters?: readonly unknown[]) => {
        // A cursor (Kysely's streaming, which Kiln does not use) passes through untouched.
        if (typeof text !== 'string') return client.query(text as pg.Submittable);
        const result = client.query(text, parameters as unknown[]);
        if (READ_ONLY.test(text)) return result;
        return result.finally(noteWrite);
      };
      return {
        // pg's overloads and Kysely's describe the same two calls in different words.
        query: query as unknown as PostgresPoolClient['query'],
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}
