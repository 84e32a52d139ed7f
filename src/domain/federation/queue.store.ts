import { randomUUID } from 'node:crypto';
import type { FederationDb } from './federation.tables.ts';

/** A message a listener won: its JSON text and how many times it has been claimed. */
export type ClaimedMessage = {
  readonly id: string;
  readonly message: string;
  readonly attempts: number;
};

/**
 * The `federation_queue` rows. A claim is a conditional UPDATE (`claimed_until` empty or past),
 * which on PostgreSQL re-checks the condition after taking the row lock and on SQLite runs under
 * the database write lock, so two replicas racing for one row cannot both win.
 */
export class QueueStore {
  readonly #db: FederationDb;

  constructor(db: FederationDb) {
    this.#db = db;
  }

  /** Adds the messages (JSON text), due at `runAt`, in batches the engines accept. */
  async insertMany(messages: readonly string[], runAt: number, now: number): Promise<void> {
    const rows = messages.map((message) => ({
      id: randomUUID(),
      message,
      run_at: runAt,
      claimed_until: null,
      attempts: 0,
      created_at: now,
    }));
    for (let at = 0; at < rows.length; at += 500) {
      await this.#db
        .insertInto('federation_queue')
        .values(rows.slice(at, at + 500))
        .execute();
    }
  }

  /** When each queued message is due. */
  async listRunAts(): Promise<number[]> {
    const rows = await this.#db.selectFrom('federation_queue').select(['run_at']).execute();
    return rows.map((row) => Number(row.run_at));
  }

  /** Claims the oldest message due at `now` until `now + leaseMs`; undefined when none is. */
  async claim(now: number, leaseMs: number): Promise<ClaimedMessage | undefined> {
    const candidate = await this.#db
      .selectFrom('federation_queue')
      .select('id')
      .where('run_at', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .orderBy('run_at')
      .limit(1)
      .executeTakeFirst();
    if (!candidate) return undefined;
    const claimed = await this.#db
      .updateTable('federation_queue')
      .set((eb) => ({ claimed_until: now + leaseMs, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', candidate.id)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .returning(['id', 'message', 'attempts'])
      .executeTakeFirst();
    // Lost the race: look again at once rather than sleeping.
    return claimed ? { ...claimed, attempts: Number(claimed.attempts) } : this.claim(now, leaseMs);
  }

  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom('federation_queue').where('id', '=', id).execute();
  }

  /** Gives a claimed message back, due again at `runAt`. */
  async release(id: string, runAt: number): Promise<void> {
    await this.#db
      .updateTable('federation_queue')
      .set({ run_at: runAt, claimed_until: null })
      .where('id', '=', id)
      .execute();
  }
}
