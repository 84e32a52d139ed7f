/**
 * In-memory fixed-window request meter (SPEC.md → Limits): one (window start, count) entry per
 * key, per replica. A key's window opens at its first hit and lasts `windowMs`; the hit that
 * finds the window elapsed opens a new one.
 *
 * Memory stays bounded under a flood of distinct keys: the map is kept in window-start order
 * (a key whose window rolls over is deleted and re-inserted at the end), so once it holds more
 * than `maxKeys` entries the elapsed ones are all at the front and each insert drops them from
 * there, stopping at the first live entry. Each entry is removed at most once per insert, so
 * the cost is amortised O(1), and the map never holds more than `maxKeys` plus the keys of one
 * window.
 */

export interface MeterDecision {
  /** The hit is within the key's budget for the current window. */
  readonly allowed: boolean;
  /** Whole seconds until the key's current window ends, at least 1 (the `Retry-After` value). */
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

  /**
   * Counts one hit for `key` and decides it against `budget` hits per window. Refused hits are
   * counted too (the count stops growing at budget + 1), so hammering does not open a new window.
   */
  hit(key: string, budget: number, now: number = this.#clock()): MeterDecision {
    let entry = this.#entries.get(key);
    if (entry === undefined || this.#elapsed(entry, now)) {
      if (entry !== undefined) this.#entries.delete(key);
      entry = { start: now, count: 0 };
      this.#entries.set(key, entry);
      if (this.#entries.size > this.maxKeys) this.#pruneElapsed(now);
    }
    if (entry.count <= budget) entry.count += 1;
    const windowEnd = entry.start + this.windowMs;
    return {
      allowed: entry.count <= budget,
      retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
      remaining: Math.max(0, budget - entry.count),
    };
  }

  /**
   * A window has elapsed once its full length has passed. A start in the future means the clock
   * stepped back; treat that window as over rather than stretching it.
   */
  #elapsed(entry: WindowEntry, now: number): boolean {
    return now >= entry.start + this.windowMs || now < entry.start;
  }

  /** Drops elapsed entries from the front of the (start-ordered) map, up to the first live one. */
  #pruneElapsed(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (!this.#elapsed(entry, now)) return;
      this.#entries.delete(key);
    }
  }
}
