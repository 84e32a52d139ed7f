import { randomUUID } from 'node:crypto';
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from '@fedify/fedify';
import type { FederationDb } from './federation.tables.ts';

export type QueueOptions = {
  /** How often an idle listener looks for due messages (another replica may have added some). */
  readonly pollIntervalMs?: number;
  /** How long a claim lasts; a replica that dies holding one lets it go after this. */
  readonly leaseMs?: number;
  /** First retry delay; each further failure doubles it, up to `maxBackoffMs`. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
};

/**
 * Fedify's message queue over Kiln's own database, durable and shared by replicas. A message is
 * run by exactly one listener: it is claimed by a conditional UPDATE (`claimed_until` empty or
 * past), which on PostgreSQL re-checks the condition after taking the row lock and on SQLite runs
 * under the database write lock, so two replicas racing for one row cannot both win. A message is
 * deleted once its handler returns; a handler that throws gets it back later, with exponential
 * back-off (`nativeRetrial`), so the handler decides when to give up by returning.
 */
export class KyselyMessageQueue implements MessageQueue {
  readonly nativeRetrial = true;
  readonly #db: FederationDb;
  readonly #pollIntervalMs: number;
  readonly #leaseMs: number;
  readonly #backoffMs: number;
  readonly #maxBackoffMs: number;
  /** Wakes local listeners at once when this process enqueues. */
  readonly #wakers = new Set<() => void>();

  constructor(db: FederationDb, options: QueueOptions = {}) {
    this.#db = db;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#backoffMs = options.backoffMs ?? 5_000;
    this.#maxBackoffMs = options.maxBackoffMs ?? 3_600_000;
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await this.enqueueMany([message], options);
  }

  async enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions) {
    if (messages.length === 0) return;
    const now = Date.now();
    const delayMs = options?.delay ? options.delay.total({ unit: 'millisecond' }) : 0;
    const rows = messages.map((message) => ({
      id: randomUUID(),
      message: JSON.stringify(message),
      run_at: now + Math.max(0, delayMs),
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
    for (const wake of this.#wakers) wake();
  }

  async getDepth(): Promise<MessageQueueDepth> {
    const now = Date.now();
    const rows = await this.#db.selectFrom('federation_queue').select(['run_at']).execute();
    const ready = rows.filter((row) => Number(row.run_at) <= now).length;
    return { queued: rows.length, ready, delayed: rows.length - ready };
  }

  /**
   * Runs due messages one at a time until `signal` aborts. Resolves when it stops.
   */
  async listen(
    handler: (message: unknown) => Promise<void> | void,
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    const { signal } = options;
    while (!signal?.aborted) {
      const claimed = await this.claim();
      if (!claimed) {
        await this.#idle(signal);
        continue;
      }
      try {
        await handler(JSON.parse(claimed.message));
        await this.#db.deleteFrom('federation_queue').where('id', '=', claimed.id).execute();
      } catch {
        const delay = Math.min(this.#maxBackoffMs, this.#backoffMs * 2 ** (claimed.attempts - 1));
        await this.#db
          .updateTable('federation_queue')
          .set({ run_at: Date.now() + delay, claimed_until: null })
          .where('id', '=', claimed.id)
          .execute();
      }
    }
  }

  /** Claims the oldest due message, or returns undefined when none is due or another won it. */
  async claim(): Promise<{ id: string; message: string; attempts: number } | undefined> {
    const now = Date.now();
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
      .set((eb) => ({ claimed_until: now + this.#leaseMs, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', candidate.id)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
      .returning(['id', 'message', 'attempts'])
      .executeTakeFirst();
    // Lost the race: look again at once rather than sleeping.
    return claimed ? { ...claimed, attempts: Number(claimed.attempts) } : this.claim();
  }

  #idle(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.#pollIntervalMs);
      this.#wakers.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
