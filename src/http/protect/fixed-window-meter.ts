/**
 * In-memory fixed-window request meter (SPEC.md → Limits): one (window start, count) entry per
 * key, per replica. Windows are aligned to the clock (`floor(now / windowMs)`), so every key rolls
 * over at the same instant; a key's first hit in a new window resets its count.
 *
 * Memory stays bounded under a flood of distinct keys: once the map holds more than `maxKeys`
 * entries, one pass drops every entry of an elapsed window, and no further pass runs until the
 * current window ends (nothing else can have elapsed before then). Each pass is paid for by the
 * inserts since the previous one, and the map never holds more than `maxKeys` plus the keys of
 * one window. (Pruning entry by entry from the front of the Map looks cheaper but is not: V8
 * leaves deleted slots in place until the next rehash, and every fresh iterator walks them.)
 */

export interface MeterDecision {
  /** The hit is within the key's budget for the current window. */
  readonly allowed: boolean;
  /** Whole seconds until the current window ends, at least 1 (the `Retry-After` value). */
  readonly retryAfterSeconds: number;
  /** Hits left in the current window after this one, never negative. */
  readonly remaining: number;
}

export interface FixedWindowMeterOptions {
  /** Window length in milliseconds. */
  readonly windowMs: number;
  /** Entry count past which elapsed windows are pruned; default 50,000 (SPEC.md → Limits). */
  readonly maxKeys?: number;
  /** Millisecond clock used when `hit` is called without `now`; default `Date.now`. */
  readonly clock?: () => number;
}

interface WindowEntry {
  start: number;
  count: number;
}

export const DEFAULT_MAX_METER_KEYS = 50_000;

export class FixedWindowMeter {
  readonly windowMs: number;
  readonly maxKeys: number;
  readonly #clock: () => number;
  readonly #entries = new Map<string, WindowEntry>();
  /** Start of the window in which the last prune ran; no second pass within one window. */
  #prunedWindow = Number.NaN;

  constructor(options: FixedWindowMeterOptions) {
    if (!Number.isFinite(options.windowMs) || options.windowMs <= 0) {
      throw new RangeError(
        `window length must be a positive number of ms, got ${options.windowMs}`,
      );
    }
    const maxKeys = options.maxKeys ?? DEFAULT_MAX_METER_KEYS;
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) {
      throw new RangeError(`maxKeys must be a positive integer, got ${maxKeys}`);
    }
    this.windowMs = options.windowMs;
    this.maxKeys = maxKeys;
    this.#clock = options.clock ?? Date.now;
  }

  /** Number of keys currently held (elapsed windows included until pruned). */
  get size(): number {
    return this.#entries.size;
  }

  /** Hits counted for `key` in the window containing `now` (0 for an unknown or elapsed key). */
  used(key: string, now: number = this.#clock()): number {
    const entry = this.#entries.get(key);
    const windowStart = Math.floor(now / this.windowMs) * this.windowMs;
    return entry !== undefined && entry.start === windowStart ? entry.count : 0;
  }

  /**
   * Counts one hit for `key` and decides it against `budget` hits per window. Refused hits are
   * counted too (the count stops growing at budget + 1).
   */
  hit(key: string, budget: number, now: number = this.#clock()): MeterDecision {
    const windowStart = Math.floor(now / this.windowMs) * this.windowMs;
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { start: windowStart, count: 0 };
      this.#entries.set(key, entry);
      if (this.#entries.size > this.maxKeys) this.#prune(windowStart);
    } else if (entry.start !== windowStart) {
      // Elapsed, or from the future because the clock stepped back: a fresh window either way.
      entry.start = windowStart;
      entry.count = 0;
    }
    if (entry.count <= budget) entry.count += 1;
    return {
      allowed: entry.count <= budget,
      retryAfterSeconds: Math.max(1, Math.ceil((windowStart + this.windowMs - now) / 1000)),
      remaining: Math.max(0, budget - entry.count),
    };
  }

  /** Drops every entry that is not of the current window, at most once per window. */
  #prune(windowStart: number): void {
    if (this.#prunedWindow === windowStart) return;
    this.#prunedWindow = windowStart;
    for (const [key, entry] of this.#entries) {
      if (entry.start !== windowStart) this.#entries.delete(key);
    }
  }
}
