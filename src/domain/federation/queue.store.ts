import { randomUUID } from 'node:crypto';
import { type ExpressionBuilder, sql } from 'kysely';
import type { FederationDb, FederationTables } from './federation.tables.ts';

/** A message a listener won: its JSON text and how many times it has been claimed. */
export type ClaimedMessage = {
  readonly id: string;
  readonly message: string;
  readonly attempts: number;
  /** Until when the claim holds (epoch ms); it identifies this claim among later ones. */
  readonly lease: number;
};

/**
 * The `federation_queue` rows. A claim is one conditional UPDATE (`claimed_until` empty or past),
 * which on PostgreSQL re-checks the condition after taking the row lock and on SQLite runs under
 * the database write lock, so two replicas racing for one row cannot both win.
 */
export class QueueStore {
  readonly #db: FederationDb;
  readonly #skipLocked: boolean;

  /** `skipLocked`: the engine understands `FOR UPDATE SKIP LOCKED` (PostgreSQL). */
  constructor(db: FederationDb, options: { readonly skipLocked?: boolean } = {}) {
    this.#db = db;
    this.#skipLocked = options.skipLocked ?? false;
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

  /**
   * Claims the oldest message due at `now` until `now + leaseMs`; undefined when none is. One
   * statement picks and marks the row, and the mark re-checks that the row is still free, so two
   * listeners never hold one message at once. On PostgreSQL the pick skips rows another
   * transaction has locked (`FOR UPDATE SKIP LOCKED`): racing replicas take different messages
   * instead of queueing behind one row. SQLite runs the statement under its write lock.
   */
  async claim(now: number, leaseMs: number): Promise<ClaimedMessage | undefined> {
    const free = (eb: ExpressionBuilder<FederationTables, 'federation_queue'>) =>
      eb.and([
        eb('run_at', '<=', now),
        eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]),
      ]);
    let pick = this.#db
      .selectFrom('federation_queue')
      .select('id')
      .where(free)
      .orderBy('run_at')
      .limit(1);
    if (this.#skipLocked) pick = pick.forUpdate().skipLocked();
    const lease = now + leaseMs;
    const claimed = await this.#db
      .updateTable('federation_queue')
      .set((eb) => ({ claimed_until: lease, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', pick)
      .where(free)
      .returning(['id', 'message', 'attempts'])
      .executeTakeFirst();
    return claimed ? { ...claimed, attempts: Number(claimed.attempts), lease } : undefined;
  }

  /** The host and attempts so far of every queued delivery (other work is left out). */
  async deliveries(): Promise<{ host: string; attempts: number }[]> {
    const rows = await this.#db
      .selectFrom('federation_queue')
      .select(['message', 'attempts'])
      .where('message', 'like', '%"kind":"deliver"%')
      .execute();
    return rows.flatMap((row) => {
      const host = inboxHost(row.message);
      return host === undefined ? [] : [{ host, attempts: Number(row.attempts) }];
    });
  }

  /**
   * Deletes the queued deliveries whose inbox host `matches` accepts; `hint` (text every such
   * message contains) narrows the rows read. Returns how many went.
   */
  async dropDeliveries(hint: string, matches: (host: string) => boolean): Promise<number> {
    const escaped = hint.replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = await this.#db
      .selectFrom('federation_queue')
      .select(['id', 'message'])
      .where(sql<boolean>`message like ${`%${escaped}%`} escape '\\'`)
      .execute();
    const ids = rows.filter((row) => {
      const host = inboxHost(row.message);
      return host !== undefined && matches(host);
    });
    for (let at = 0; at < ids.length; at += 500) {
      const batch = ids.slice(at, at + 500).map((row) => row.id);
      await this.#db.deleteFrom('federation_queue').where('id', 'in', batch).execute();
    }
    return ids.length;
  }

  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom('federation_queue').where('id', '=', id).execute();
  }

  /** Gives a claimed message back, due again at `runAt`. */
  async release(claimed: ClaimedMessage, runAt: number): Promise<void> {
    // Only while the claim is still ours: once the lease ran out another listener may hold it.
    await this.#db
      .updateTable('federation_queue')
      .set({ run_at: runAt, claimed_until: null })
      .where('id', '=', claimed.id)
      .where('claimed_until', '=', claimed.lease)
      .execute();
  }
}

/** The inbox host of a queued delivery's JSON text; undefined for other work. */
function inboxHost(message: string): string | undefined {
  try {
    const parsed = JSON.parse(message) as { kind?: unknown; inbox?: unknown };
    if (parsed.kind !== 'deliver' || typeof parsed.inbox !== 'string') return undefined;
    return URL.canParse(parsed.inbox) ? new URL(parsed.inbox).host : undefined;
  } catch {
    return undefined;
  }
}
