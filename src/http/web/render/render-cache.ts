/**
 * Rendered output by content key, least recently used first out, bounded by the characters it
 * holds. A key names immutable input (a blob id, a content hash), so an entry is never stale;
 * entries may carry an expiry for outcomes that depend on the moment (a render that ran out of
 * time under load may finish another time).
 */
export class RenderCache<Value> {
  readonly #maxChars: number;
  readonly #entries = new Map<string, { value: Value; chars: number; expiresAt: number }>();
  #chars = 0;

  /** `maxChars` 0 keeps nothing. */
  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** Characters held, keys included. */
  get size(): number {
    return this.#chars;
  }

  get(key: string, now = Date.now()): Value | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= now) {
      this.#chars -= entry.chars;
      return undefined;
    }
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value`, counted as `chars` characters; something larger than the cache is not kept. */
  set(key: string, value: Value, chars: number, ttlMs = Number.POSITIVE_INFINITY): void {
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#chars -= old.chars;
    }
    const size = chars + key.length;
    if (size > this.#maxChars) return;
    this.#entries.set(key, { value, chars: size, expiresAt: Date.now() + ttlMs });
    this.#chars += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#chars <= this.#maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= entry.chars;
    }
  }
}
