import type { Config } from '../../config/config.ts';
import { BoundedMap } from '../../lib/bounded-map.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { withDigitGroups } from '../../lib/digit-groups.ts';
import { HostAllowlist } from '../../lib/host-allowlist.ts';
import { type ConnectionPools, createConnectionPools } from '../../outbound/connection-pools.ts';
import type { ClaimedDelivery, DeliveryStore, RecordEntry } from './delivery.store.ts';
import { attemptDelivery } from './delivery-attempt.ts';
import type { WebhookService } from './webhook.service.ts';
import type { StoredHook, WebhookStore } from './webhook.store.ts';

/** The `service.webhook.*` settings. */
export type DeliverySettings = Config['webhook'];

export type DeliveryWorkerDeps = {
  readonly hooks: WebhookStore;
  readonly deliveries: DeliveryStore;
  readonly service: WebhookService;
  readonly settings: DeliverySettings;
  readonly userAgent: string;
  readonly report: (error: unknown) => void;
  /** Where its cache of hook rows is declared (the composition root's registry). */
  readonly caches?: CacheRegistry;
};

/** Answers are kept up to this size in the delivery log. */
const KEPT_BODY_BYTES = 64 * 1024;
/** How often the queue is looked at when nobody said something was queued (other replicas). */
const POLL_MS = 1000;
/** Claimed batches hold this many times the concurrency, so claiming is not per delivery. */
const CLAIM_AHEAD = 4;
const PRUNE_EVERY_MS = 3_600_000;
/** Hook rows kept between attempts; more hooks than this with queued deliveries read again. */
const HOOKS_KEPT = 1000;

/**
 * Drains the delivery queue: claims due rows (a lease, so replicas never send one attempt
 * twice), sends them with at most `concurrency` in flight, records every attempt, retries 5xx
 * answers and network errors with doubling back-off, counts failures on the hook (which switches
 * itself off after `disableAfter` in a row) and drops records older than the retention. Runs
 * beside requests, never inside one: a push only writes queue rows.
 */
export class DeliveryWorker {
  readonly #deps: DeliveryWorkerDeps;
  readonly #allowlist: HostAllowlist;
  readonly #pools: ConnectionPools;
  /** Hook rows by id, each with when it was read (see `#hookOf`). */
  readonly #hooks = new BoundedMap<
    string,
    { readonly generation: string; readonly row: Promise<StoredHook | undefined> }
  >(HOOKS_KEPT);
  /** Claimed batches so far. */
  #batches = 0;
  /** Opened secrets by hook row: opened once while the same row is in use. */
  readonly #credentials = new WeakMap<StoredHook, { secret: string; authorization: string }>();
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #again = false;
  #stopped = false;
  #lastPrune = 0;
  readonly #toRecord: RecordEntry[] = [];
  #flush: Promise<void> | undefined;

  constructor(deps: DeliveryWorkerDeps) {
    this.#deps = deps;
    this.#allowlist = new HostAllowlist(deps.settings.allowedHosts);
    this.#pools = createConnectionPools(deps.settings.concurrency);
    deps.caches?.add(
      {
        name: 'webhook_delivery_hooks',
        key: 'hook id',
        freshness: 'change-stamp',
        bound: `${withDigitGroups(HOOKS_KEPT)} hook rows`,
      },
      this.#hooks,
    );
  }

  start(): void {
    this.#timer = setInterval(() => this.kick(), POLL_MS);
    this.#timer.unref();
    this.kick();
  }

  /**
   * Looks at the queue now (after something was queued). Only a started worker delivers: a
   * one-shot command that queues an event leaves it to the serving processes.
   */
  kick(): void {
    if (this.#stopped || !this.#timer) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    this.#drain()
      .catch((error: unknown) => this.#deps.report(error))
      .finally(() => {
        this.#running = false;
        if (this.#again) {
          this.#again = false;
          this.kick();
        }
      });
  }

  /** Stops claiming and waits for the attempts under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    while (this.#running || this.#inFlight.size > 0) {
      await Promise.race([...this.#inFlight, new Promise((resolve) => setTimeout(resolve, 20))]);
    }
    this.#pools.destroy();
  }

  async #drain(): Promise<void> {
    const { settings, deliveries } = this.#deps;
    const now = Date.now();
    if (now - this.#lastPrune > PRUNE_EVERY_MS) {
      this.#lastPrune = now;
      await deliveries.prune(now - settings.retentionMs);
    }
    // Claims run ahead of the free slots (a batch waits its turn here), so the lease covers
    // the batch's wait as well as its own attempt, with room to record it.
    const batch = settings.concurrency * CLAIM_AHEAD;
    const leaseMs = settings.timeoutMs * (CLAIM_AHEAD + 1) + 5000;
    const waiting: ClaimedDelivery[] = [];
    while (!this.#stopped) {
      if (waiting.length === 0) {
        waiting.push(...(await deliveries.claim(batch, Date.now(), leaseMs)));
        this.#batches += 1;
        if (waiting.length === 0) break;
      }
      while (this.#inFlight.size < settings.concurrency) {
        const delivery = waiting.shift();
        if (delivery === undefined) break;
        const attempt = this.#hookOf(delivery.hookId)
          .then((stored) => this.#attempt(delivery, stored))
          .catch((error: unknown) => this.#deps.report(error));
        const tracked = attempt.finally(() => this.#inFlight.delete(tracked));
        this.#inFlight.add(tracked);
      }
      if (waiting.length > 0) await Promise.race(this.#inFlight);
    }
    // Stopped with claims not started: they wait for their lease to end, then anyone sends them.
  }

  /**
   * The hook row, read once and shared until the hooks' change clock moves (an edit, a deletion,
   * a count of failures, another process's commit): an edit applies from the next attempt, and a
   * deep queue for one hook does not read its row once per delivery. Without a clock
   * (PostgreSQL, where other replicas edit unseen) a row serves the batch it was claimed in.
   */
  #hookOf(id: string): Promise<StoredHook | undefined> {
    const stamp = this.#deps.hooks.stamp();
    const generation = stamp === undefined ? `batch ${this.#batches}` : `clock ${stamp}`;
    const kept = this.#hooks.get(id);
    if (kept?.generation === generation) return kept.row;
    const row = this.#deps.hooks.findById(id);
    const entry = { generation, row };
    this.#hooks.set(id, entry);
    // A failed read is not kept: the next attempt reads again.
    row.catch(() => this.#hooks.get(id) === entry && this.#hooks.delete(id));
    return row;
  }

  async #attempt(delivery: ClaimedDelivery, stored: StoredHook | undefined): Promise<void> {
    const { settings } = this.#deps;
    if (!stored) return; // The hook was deleted; its rows went with it.
    let credentials = this.#credentials.get(stored);
    if (!credentials) {
      credentials = this.#deps.service.openCredentials(stored);
      this.#credentials.set(stored, credentials);
    }
    const { record, succeeded, retryable } = await attemptDelivery(delivery, stored, {
      credentials,
      userAgent: this.#deps.userAgent,
      transport: {
        policy: this.#allowlist,
        pools: this.#pools,
        timeoutMs: settings.timeoutMs,
        maxBodyBytes: KEPT_BODY_BYTES,
        overflow: 'keep-first',
        purpose: 'webhook',
      },
    });
    const attempts = delivery.attempts + 1;
    const now = Date.now();
    const retryAt =
      !succeeded && retryable && attempts < settings.maxAttempts
        ? now + settings.retryDelayMs * 2 ** (attempts - 1)
        : undefined;
    await this.#record({
      id: delivery.id,
      hookId: stored.hook.id,
      attempt: record,
      outcome: { succeeded, retryAt, attempts, now },
    });
    if (retryAt !== undefined) this.#wakeAt(retryAt);
  }

  /**
   * Records an attempt together with the others that finished in the same turn of the event
   * loop: one transaction for all of them and for their hooks' failure counts, where one each
   * cost most of a delivery's time.
   */
  #record(entry: RecordEntry): Promise<void> {
    this.#toRecord.push(entry);
    if (!this.#flush) {
      this.#flush = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        const entries = this.#toRecord.splice(0);
        this.#flush = undefined;
        const { hooks, deliveries, settings } = this.#deps;
        await deliveries.recordMany(entries, (trx) =>
          hooks.countOutcomes(entries, settings.disableAfter, Date.now(), trx),
        );
      });
    }
    return this.#flush;
  }

  /** Looks again when a retry falls due, sooner than the next poll would. */
  #wakeAt(at: number): void {
    const wait = Math.max(0, at - Date.now());
    if (wait >= POLL_MS) return;
    setTimeout(() => this.kick(), wait).unref();
  }
}
