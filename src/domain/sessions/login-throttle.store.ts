import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/** How a key is counted: failures within a window, then a lock that doubles up to a cap. */
export type ThrottleRule = {
  readonly limit: number;
  readonly windowMs: number;
  readonly firstLockMs: number;
  readonly maxLockMs: number;
};

/** An integer parameter both engines type alike (PostgreSQL cannot guess a bare `$1` in a CASE). */
const int = (value: number) => sql`cast(${value} as bigint)`;

/**
 * The `login_throttle` rows. Every change is one statement, so concurrent sign-ins on any
 * number of replicas count exactly: the count and the lock move together, under the row's lock.
 */
export class LoginThrottleStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Counts one attempt against `keyHash` unless the key is locked now. Returns the new count,
   * or undefined when the key is locked (nothing is counted then, so hammering a lock does not
   * lengthen it). Reaching the limit locks the key at once; the attempt that reached it is
   * still checked, and a success lifts the lock again (`clear`, `undo`).
   */
  async count(keyHash: string, rule: ThrottleRule, now: number): Promise<number | undefined> {
    const cutoff = now - rule.windowMs;
    const fresh = sql`login_throttle.window_start <= ${int(cutoff)}`;
    const failures = sql`case when ${fresh} then 1 else login_throttle.failures + 1 end`;
    const lockMs = sql`case
      when ${failures} < ${int(rule.limit)} then 0
      when ${failures} = ${int(rule.limit)} then ${int(rule.firstLockMs)}
      when login_throttle.lock_ms * 2 > ${int(rule.maxLockMs)} then ${int(rule.maxLockMs)}
      else login_throttle.lock_ms * 2 end`;
    const firstLock = rule.limit <= 1 ? rule.firstLockMs : 0;
    const result = await sql<{ failures: number }>`
      insert into login_throttle (key_hash, failures, window_start, lock_ms, locked_until)
      values (${keyHash}, 1, ${int(now)}, ${int(firstLock)}, ${int(firstLock === 0 ? 0 : now + firstLock)})
      on conflict (key_hash) do update set
        failures = ${failures},
        window_start = case when ${fresh} then ${int(now)} else login_throttle.window_start end,
        lock_ms = ${lockMs},
        locked_until = case when ${failures} < ${int(rule.limit)} then 0 else ${int(now)} + ${lockMs} end
      where login_throttle.locked_until <= ${int(now)}
      returning failures`.execute(this.#db);
    const row = result.rows[0];
    return row === undefined ? undefined : Number(row.failures);
  }

  /** When the key's lock ends (epoch ms), 0 when it is not locked. */
  async lockedUntil(keyHash: string): Promise<number> {
    const row = await this.#db
      .selectFrom('login_throttle')
      .select('locked_until')
      .where('key_hash', '=', keyHash)
      .executeTakeFirst();
    return row?.locked_until ?? 0;
  }

  /** The highest count among the keys that is still inside its window. */
  async failures(keyHashes: readonly string[], windowMs: number, now: number): Promise<number> {
    const rows = await this.#db
      .selectFrom('login_throttle')
      .select('failures')
      .where('key_hash', 'in', keyHashes)
      .where('window_start', '>', now - windowMs)
      .execute();
    return Math.max(0, ...rows.map((row) => Number(row.failures)));
  }

  /** Forgets the key entirely (its owner just proved the password). */
  async clear(keyHash: string): Promise<void> {
    await this.#db.deleteFrom('login_throttle').where('key_hash', '=', keyHash).execute();
  }

  /** Takes back one counted attempt that turned out well, and the lock it may have set. */
  async undo(keyHash: string, rule: ThrottleRule): Promise<void> {
    const below = sql`login_throttle.failures - 1 < ${int(rule.limit)}`;
    await sql`update login_throttle set
        failures = failures - 1,
        lock_ms = case when ${below} then 0 else lock_ms end,
        locked_until = case when ${below} then 0 else locked_until end
      where key_hash = ${keyHash} and failures > 0`.execute(this.#db);
  }
}
