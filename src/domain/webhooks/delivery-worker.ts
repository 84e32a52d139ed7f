import type { Config } from '../../config/config.ts';
import { HostAllowlist } from '../../lib/host-allowlist.ts';
import type { AttemptRecord, ClaimedDelivery, DeliveryStore } from './delivery.store.ts';
import type { WebhookService } from './webhook.service.ts';
import type { StoredHook, WebhookStore } from './webhook.store.ts';
import { buildHookRequest, recordableHeaders } from './webhook-request.ts';
import { sendWebhookRequest } from './webhook-transport.ts';

/** The `service.webhook.*` settings. */
export type DeliverySettings = Config['webhook'];

export type DeliveryWorkerDeps = {
  readonly hooks: WebhookStore;
  readonly deliveries: DeliveryStore;
  readonly service: WebhookService;
  readonly settings: DeliverySettings;
  readonly userAgent: string;
  readonly report: (error: unknown) => void;
};

/** Answers are kept up to this size in the delivery log. */
const KEPT_BODY_BYTES = 64 * 1024;
/** How often the queue is looked at when nobody said something was queued (other replicas). */
const POLL_MS = 1000;
const PRUNE_EVERY_MS = 3_600_000;

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
  readonly #inFlight = new Set<Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #again = false;
  #stopped = false;
  #lastPrune = 0;

  constructor(deps: DeliveryWorkerDeps) {
    this.#deps = deps;
    this.#allowlist = new HostAllowlist(deps.settings.allowedHosts);
  }

  start(): void {
    this.#timer = setInterval(() => this.kick(), POLL_MS);
    this.#timer.unref();
    this.kick();
  }

  /** Looks at the queue now (after something was queued). */
  kick(): void {
    if (this.#stopped) return;
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
  }

  async #drain(): Promise<void> {
    const { settings, deliveries } = this.#deps;
    const now = Date.now();
    if (now - this.#lastPrune > PRUNE_EVERY_MS) {
      this.#lastPrune = now;
      await deliveries.prune(now - settings.retentionMs);
    }
    // A lease outlives the attempt (timeout) with room to record it.
    const leaseMs = settings.timeoutMs * 2 + 5000;
    while (!this.#stopped) {
      const room = settings.concurrency - this.#inFlight.size;
      if (room <= 0) {
        await Promise.race(this.#inFlight);
        continue;
      }
      const claimed = await deliveries.claim(room, Date.now(), leaseMs);
      if (claimed.length === 0) break;
      const hooks = new Map<string, Promise<StoredHook | undefined>>();
      for (const delivery of claimed) {
        let hook = hooks.get(delivery.hookId);
        if (!hook) {
          hook = this.#deps.hooks.findById(delivery.hookId);
          hooks.set(delivery.hookId, hook);
        }
        const attempt = hook
          .then((stored) => this.#attempt(delivery, stored))
          .catch((error: unknown) => this.#deps.report(error));
        const tracked = attempt.finally(() => this.#inFlight.delete(tracked));
        this.#inFlight.add(tracked);
      }
    }
  }

  async #attempt(delivery: ClaimedDelivery, stored: StoredHook | undefined): Promise<void> {
    const { settings, deliveries, hooks } = this.#deps;
    const attempts = delivery.attempts + 1;
    if (!stored) return; // The hook was deleted; its rows went with it.
    const { hook } = stored;
    const { secret, authorization } = this.#deps.service.openCredentials(stored);
    const request = buildHookRequest({
      type: hook.type,
      url: hook.url,
      httpMethod: hook.httpMethod,
      contentType: hook.contentType,
      secret,
      authorization,
      deliveryId: delivery.id,
      event: delivery.event,
      eventType: delivery.eventType,
      payload: delivery.payload,
      userAgent: this.#deps.userAgent,
    });
    const started = performance.now();
    let record: AttemptRecord;
    let retryable: boolean;
    let succeeded: boolean;
    const base = {
      requestUrl: request.url,
      requestHeaders: recordableHeaders(request.headers),
      requestBody: request.body,
    };
    try {
      const answer = await sendWebhookRequest(request, {
        allowlist: this.#allowlist,
        timeoutMs: settings.timeoutMs,
        maxBodyBytes: KEPT_BODY_BYTES,
      });
      succeeded = answer.status >= 200 && answer.status < 300;
      retryable = answer.status >= 500 || answer.status === 429;
      record = {
        ...base,
        responseStatus: answer.status,
        responseHeaders: answer.headers,
        responseBody: answer.body,
        error: null,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      succeeded = false;
      retryable = true;
      record = {
        ...base,
        responseStatus: null,
        responseHeaders: {},
        responseBody: null,
        error: error instanceof Error ? error.message : String(error),
        durationMs: Math.round(performance.now() - started),
      };
    }
    const now = Date.now();
    const retryAt =
      !succeeded && retryable && attempts < settings.maxAttempts
        ? now + settings.retryDelayMs * 2 ** (attempts - 1)
        : undefined;
    await deliveries.record(delivery.id, record, { succeeded, retryAt, attempts, now });
    if (succeeded) await hooks.recordSuccess(hook.id);
    else await hooks.recordFailure(hook.id, settings.disableAfter, now);
    if (retryAt !== undefined) this.#wakeAt(retryAt);
  }

  /** Looks again when a retry falls due, sooner than the next poll would. */
  #wakeAt(at: number): void {
    const wait = Math.max(0, at - Date.now());
    if (wait >= POLL_MS) return;
    setTimeout(() => this.kick(), wait).unref();
  }
}
