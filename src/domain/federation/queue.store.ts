import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { LeaseQueue, type LeaseQueueShape } from '../../db/lease-queue.ts';
import type { Dialect } from '../../db/migration.ts';
import type { FederationDb, FederationTables } from './federation.tables.ts';

/** A message a listener won: its JSON text and how many times it has been claimed. */
export type ClaimedMessage = {
  readonly id: string;
  readonly message: string;
  readonly attempts: number;
  /** Until when the claim holds (epoch ms); it identifies this claim among later ones. */
  readonly lease: number;
};

/** Messages are due from `run_at`; `claimed_until` is the lease, empty when free. */
const MESSAGE_QUEUE: LeaseQueueShape<FederationTables, 'federation_queue'> = {
  table: 'federation_queue',
  key: 'id',
  lease: 'claimed_until',
  freeLease: null,
  due: 'run_at',
  attempts: 'attempts',
};

/**
 * The `federation_queue` rows, claimed and released through the one lease queue
 * (`db/lease-queue.ts`), so two replicas racing for one row cannot both win.
 */
export class QueueStore {
  readonly #db: FederationDb;
  readonly #queue: LeaseQueue<FederationTables, 'federation_queue'>;

  constructor(db: FederationDb, dialect: Dialect = 'sqlite') {
    this.#db = db;
    this.#queue = new LeaseQueue(db, MESSAGE_QUEUE, dialect);
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
   * Claims the oldest message due at `now` until `now + leaseMs`; undefined when none is. The one
   * lease queue picks and marks the row in one statement that re-checks it is still free, so two
   * listeners never hold one message at once.
   */
  async claim(now: number, leaseMs: number): Promise<ClaimedMessage | undefined> {
    const [claimed] = await this.#queue.claimDue(1, {
      now,
      leaseMs,
      returning: ['id', 'message', 'attempts'],
    });
    if (claimed === undefined) return undefined;
    const { id, message, attempts } = claimed;
    return { id, message, attempts: Number(attempts), lease: now + leaseMs };
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

  /** Removes a message that has run. */
  async delete(id: string): Promise<void> {
    await this.#queue.remove(id);
  }

  /** Gives a claimed message back, due again at `runAt`. */
  async release(claimed: ClaimedMessage, runAt: number): Promise<void> {
    // Only while the claim is still ours: once the lease ran out another listener may hold it.
    await this.#queue.release(claimed.id, {
      set: { run_at: runAt },
      where: (eb) => eb('claimed_until', '=', claimed.lease),
    });
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
