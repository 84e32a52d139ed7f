/**
 * A rate with a burst, kept as one number (the generic cell rate algorithm): `due` is when the
 * work admitted so far would have finished had it arrived at exactly `perSecond`. Work may start
 * while `due` is at most `burst` units ahead of now; past that it waits until it is not.
 *
 * Why a wait rather than a refusal: a caller that waits before reading what it was sent leaves
 * the sender blocked on TCP backpressure, which costs neither side a cycle, where an answer at
 * once invites the sender to try again at once.
 *
 * @example
 *   const pace = new Pace({ perSecond: 50, burst: 50, maxWaitMs: 2000 });
 *   const waitMs = pace.reserve(1);
 *   if (waitMs === undefined) return refuse();
 *   await sleep(waitMs);
 */
export class Pace {
  readonly #msPerUnit: number;
  readonly #burstMs: number;
  readonly #maxWaitMs: number;
  #due = Number.NEGATIVE_INFINITY;

  constructor(limits: PaceLimits) {
    if (!(limits.perSecond > 0) || !(limits.burst >= 0) || !(limits.maxWaitMs >= 0)) {
      throw new RangeError('a pace needs a positive rate, and a burst and wait of at least 0');
    }
    this.#msPerUnit = 1000 / limits.perSecond;
    this.#burstMs = limits.burst * this.#msPerUnit;
    this.#maxWaitMs = limits.maxWaitMs;
  }

  /**
   * Takes `units` and answers how many milliseconds to wait before the work they stand for
   * starts (0: at once); undefined, taking nothing, when that wait would pass `maxWaitMs`.
   */
  reserve(units: number, now = performance.now()): number | undefined {
    if (!(units >= 0)) units = 0;
    const ahead = Math.max(this.#due - now, 0) + units * this.#msPerUnit;
    // Measured from now, not as an instant less now: `now + x - burst - now` is not exactly
    // `x - burst` in floating point, and a whole burst after an idle spell must start at once.
    const waitMs = Math.max(0, ahead - this.#burstMs);
    if (waitMs > this.#maxWaitMs) return undefined;
    this.#due = now + ahead;
    return waitMs;
  }

  /**
   * Takes `units` of work already done, whatever the wait: for work whose size is known only
   * once it is done, so that what comes next waits for it.
   */
  charge(units: number, now = performance.now()): void {
    if (!(units >= 0) || units === Number.POSITIVE_INFINITY) return;
    this.#due = Math.max(this.#due, now) + units * this.#msPerUnit;
  }

  /** True when no work taken is still ahead of `now`: the pace holds nothing worth keeping. */
  isIdle(now = performance.now()): boolean {
    return this.#due <= now;
  }
}

export type PaceLimits = {
  /** Units admitted a second over time. */
  readonly perSecond: number;
  /** Units admitted at once when none were for a while. */
  readonly burst: number;
  /** The longest wait handed out; work that would wait longer is not taken. */
  readonly maxWaitMs: number;
};
