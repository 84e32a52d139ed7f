import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from '@fedify/fedify';
import type { ClaimedMessage, QueueStore } from './queue.store.ts';

export type QueueOptions = {
  /** How often an idle listener looks for due messages (another replica may have added some). */
  readonly pollIntervalMs?: number;
  /** How long a claim lasts; a replica that dies holding one lets it go after this. */
  readonly leaseMs?: number;
  /** First retry delay; each further failure doubles it, up to `maxBackoffMs`. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Hears a claim or release the database refused; the listener carries on after a poll. */
  readonly report?: (error: unknown) => void;
};

/** The rows the queue keeps (`QueueStore`; a stand-in in tests). */
export type MessageStore = Pick<
  QueueStore,
  'insertMany' | 'listRunAts' | 'claim' | 'delete' | 'release'
>;

/**
 * Fedify's message queue over Kiln's own database, durable and shared by replicas. A message is
 * run by exactly one listener: it is claimed by one conditional UPDATE (`QueueStore.claim`), so
 * two replicas racing for one row cannot both win. A message is deleted once its handler
 * returns; a handler that throws gets it back later, with exponential back-off (`nativeRetrial`), so the handler decides when to give up by returning.
 */
export class KyselyMessageQueue implements MessageQueue {
  readonly nativeRetrial = true;
  readonly #store: MessageStore;
  readonly #pollIntervalMs: number;
  readonly #leaseMs: number;
  readonly #backoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #report: (error: unknown) => void;
  /** Wakes local listeners at once when this process enqueues. */
  readonly #wakers = new Set<() => void>();

  constructor(store: MessageStore, options: QueueOptions = {}) {
    this.#store = store;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#leaseMs = options.leaseMs ?? 60_000;
    this.#backoffMs = options.backoffMs ?? 5_000;
    this.#maxBackoffMs = options.maxBackoffMs ?? 3_600_000;
    this.#report = options.report ?? (() => {});
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await this.enqueueMany([message], options);
  }

  async enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions) {
    if (messages.length === 0) return;
    const now = Date.now();
    const delayMs = options?.delay ? options.delay.total({ unit: 'millisecond' }) : 0;
    const texts = messages.map((message) => JSON.stringify(message));
    await this.#store.insertMany(texts, now + Math.max(0, delayMs), now);
    for (const wake of this.#wakers) wake();
  }

  async getDepth(): Promise<MessageQueueDepth> {
    const now = Date.now();
    const runAts = await this.#store.listRunAts();
    const ready = runAts.filter((runAt) => runAt <= now).length;
    return { queued: runAts.length, ready, delayed: runAts.length - ready };
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
      try {
        const claimed = await this.claim();
        if (claimed) await this.#run(claimed, handler);
        else await this.#idle(signal);
      } catch (error) {
        // A claim or release the database refused (a dropped connection, a server out of
        // connection slots) must not end the loop: nothing starts another listener, so this
        // process would never run a message again. A message whose release failed is held
        // until its lease runs out, then claimed again.
        this.#report(error);
        await this.#idle(signal);
      }
    }
  }

  /** Runs one claimed message: deleted once its handler returns, handed back if it throws. */
  async #run(
    claimed: ClaimedMessage,
    handler: (message: unknown) => Promise<void> | void,
  ): Promise<void> {
    try {
      await handler(JSON.parse(claimed.message));
      await this.#store.delete(claimed.id);
    } catch {
      const delay = Math.min(this.#maxBackoffMs, this.#backoffMs * 2 ** (claimed.attempts - 1));
      await this.#store.release(claimed, Date.now() + delay);
    }
  }

  /** Claims the oldest due message, or returns undefined when none is due or another won it. */
  async claim(): Promise<ClaimedMessage | undefined> {
    return this.#store.claim(Date.now(), this.#leaseMs);
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
