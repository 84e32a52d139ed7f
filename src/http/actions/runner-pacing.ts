import { setTimeout as sleep } from 'node:timers/promises';
import { Pace, type PaceLimits } from '../../lib/pace.ts';

const MIB = 1024 * 1024;

/**
 * Refused runner calls (missing or wrong runner headers), over the whole server: far above what
 * a fleet of runners whose registrations were deleted makes (each polls every few seconds and
 * stops at its first `unauthenticated`), far below what a client refused in a loop asks.
 */
export const REFUSAL_PACE: PaceLimits = { perSecond: 50, burst: 50, maxWaitMs: 1000 };

/**
 * Log bytes one runner uploads, as declared by its UpdateLog calls' Content-Length. A task's
 * stored log is capped at 64 MiB by default (`service.ci.log-max-bytes-per-task`): a runner that
 * stays within it waits a few seconds at most over a whole job, and one flooding past it is held
 * to this rate instead of the hundreds of megabytes a second loopback carries.
 *
 * The burst is two batches of the size runners send at most (500 rows of 1 KB): each batch is a
 * few milliseconds of the request thread, decoded and appended in one go, and a burst of 16 MiB
 * let a flooding runner's first 32 batches through back to back, which held the thread for tens
 * of milliseconds at a time. Past the burst the batches come spaced by the rate.
 */
export const LOG_UPLOAD_PACE: PaceLimits = {
  perSecond: 4 * MIB,
  burst: 1 * MIB,
  maxWaitMs: 10_000,
};

/** How many runners' paces are kept before those holding nothing are dropped. */
const KEPT_PACES = 256;

/**
 * Admission for the runner protocol's hostile classes, applied before a call's body is read.
 *
 * Invariant: what a client refused in a loop, or a runner uploading logs in a loop, costs the
 * request thread is bounded by a rate, not by how fast the client sends. Each such call waits its
 * turn with its body unread, so the client is held by TCP backpressure (the socket is not read
 * while the body is not consumed), and its next call cannot come before this one's answer. What
 * would wait past the pace's longest wait is not admitted at all: a refusal's connection is
 * dropped unanswered, an upload is answered `resource_exhausted` (runners retry their logs).
 * Calls of runners within their pace, and every other procedure, are not delayed.
 */
export class RunnerPacing {
  readonly #refusals: Pace;
  readonly #uploads = new Map<string, Pace>();
  readonly #uploadLimits: PaceLimits;

  constructor(refusals = REFUSAL_PACE, uploads = LOG_UPLOAD_PACE) {
    this.#refusals = new Pace(refusals);
    this.#uploadLimits = uploads;
  }

  /** Waits for a refusal's turn; false when there is none soon enough (drop the connection). */
  async refusal(): Promise<boolean> {
    const waitMs = this.#refusals.reserve(1);
    if (waitMs === undefined) return false;
    if (waitMs > 0) await sleep(waitMs);
    return true;
  }

  /**
   * Waits until `runnerId` may upload `bytes` more of logs (0 when the size is not declared:
   * `charge` it as it is read); false when that would wait past the longest wait (refuse the
   * call).
   */
  async logUpload(runnerId: string, bytes: number): Promise<boolean> {
    const waitMs = this.#uploadPace(runnerId).reserve(bytes);
    if (waitMs === undefined) return false;
    if (waitMs > 0) await sleep(waitMs);
    return true;
  }

  /** Counts `bytes` of logs read from `runnerId` whose size was not declared in advance. */
  charge(runnerId: string, bytes: number): void {
    this.#uploadPace(runnerId).charge(bytes);
  }

  #uploadPace(runnerId: string): Pace {
    let pace = this.#uploads.get(runnerId);
    if (pace === undefined) {
      if (this.#uploads.size >= KEPT_PACES) this.#dropIdle();
      pace = new Pace(this.#uploadLimits);
      this.#uploads.set(runnerId, pace);
    }
    return pace;
  }

  /** Forgets the paces that hold no work ahead: a new one for the same runner starts the same. */
  #dropIdle(): void {
    const now = performance.now();
    for (const [runnerId, pace] of this.#uploads) {
      if (pace.isIdle(now)) this.#uploads.delete(runnerId);
    }
  }
}
