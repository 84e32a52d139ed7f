import type { MeasuredCache } from '../../../lib/cache-registry.ts';
import { SizedLru } from '../../../lib/sized-lru.ts';

/**
 * Rendered output by content key, least recently used first out, bounded by the characters it
 * holds. A key names immutable input (a blob id, a content hash), so an entry is never stale;
 * entries may carry an expiry for outcomes that depend on the moment (a render that ran out of
 * time under load may finish another time).
 */
export class RenderCache<Value> {
  readonly #entries: SizedLru<string, { readonly value: Value; readonly expiresAt: number }>;

  /** `maxChars` 0 keeps nothing. */
  constructor(maxChars: number) {
    this.#entries = new SizedLru(maxChars);
  }

  /** Characters held, keys included. */
  get size(): number {
    return this.#entries.held;
  }

  /** Its entries and lookups, as the cache registry reports them. */
  get measured(): MeasuredCache {
    return this.#entries;
  }

  get(key: string, now = Date.now()): Value | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  /** Keeps `value`, counted as `chars` characters; something larger than the cache is not kept. */
  set(key: string, value: Value, chars: number, ttlMs = Number.POSITIVE_INFINITY): void {
    this.#entries.set(key, { value, expiresAt: Date.now() + ttlMs }, chars + key.length);
  }
}
