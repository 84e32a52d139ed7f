import { BoundedMap } from './bounded-map.ts';

/** What taking a token answered: yes, or no with the whole seconds until one is back. */
export type Take =
  | { readonly ok: true }
  | { readonly ok: false; readonly retryAfterSeconds: number };

type Bucket = { tokens: number; at: number };

/**
 * Token buckets, one per key: each holds up to `capacity` tokens and gets them back evenly over
 * `refillMs` (a full bucket per `refillMs`). At most `keys` buckets are kept; the key least
 * recently used is forgotten first, which only ever gives a sender a full bucket again, so keys
 * that come from outside cannot grow memory without end.
 */
export class TokenBuckets {
  readonly #capacity: number;
  readonly #perMs: number;
  readonly #buckets: BoundedMap<string, Bucket>;

  constructor(opts: { capacity: number; refillMs: number; keys?: number }) {
    this.#capacity = opts.capacity;
    this.#perMs = opts.capacity / opts.refillMs;
    this.#buckets = new BoundedMap(opts.keys ?? 10_000);
  }

  /** Takes one token of `key`'s bucket at `now`, when there is one. */
  take(key: string, now = Date.now()): Take {
    const known = this.#buckets.peek(key);
    const bucket = known ?? { tokens: this.#capacity, at: now };
    const elapsed = Math.max(0, now - bucket.at);
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + elapsed * this.#perMs);
    bucket.at = now;
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    const waitMs = (1 - bucket.tokens) / this.#perMs;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
}
