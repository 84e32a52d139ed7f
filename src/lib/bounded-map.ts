import { HitCounter } from './cache-registry.ts';

/**
 * A Map that holds at most `limit` entries: setting a key makes it the newest, and setting a new
 * key when full forgets the oldest first. For caches whose keys come from outside (paths, SQL
 * texts, repository names), so that no sequence of requests can grow them without end.
 *
 * @example
 *   const statements = new BoundedMap<string, Statement>(500);
 *   statements.set(sql, prepare(sql)); // the 501st distinct text drops the first
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly limit: number;
  /** Lookups through `get` that found a value, and those that did not. */
  readonly stats = new HitCounter();

  constructor(limit: number) {
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`limit must be a positive integer, got ${limit}`);
    }
    this.limit = limit;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    this.stats.count(value !== undefined);
    return value;
  }

  /** Whether `key` is held, without counting a lookup. */
  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** As `get`, without counting: for a cache built on this one that decides what a hit is. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  set(key: K, value: V): void {
    if (!this.#entries.delete(key) && this.#entries.size >= this.limit) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
