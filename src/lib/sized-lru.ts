import { HitCounter } from './cache-registry.ts';

/**
 * A map bounded by the total size of what it holds (bytes, characters: whatever the caller
 * counts), forgetting the least recently used entries first. `BoundedMap` bounds by count; this
 * is for values whose sizes differ by orders of magnitude, where a count says nothing about
 * memory.
 *
 * @example
 *   const texts = new SizedLru<string, string>(8 * 2 ** 20);
 *   texts.set(hash, body, body.length);
 *   texts.get(hash); // body, now the most recently used
 */
export class SizedLru<K, V> {
  readonly #max: number;
  // A Map iterates in insertion order: re-inserting on use keeps the least recent first.
  readonly #entries = new Map<K, { readonly value: V; readonly size: number }>();
  #held = 0;
  /** Lookups through `get` that found a value, and those that did not. */
  readonly stats = new HitCounter();

  /** `max` 0 keeps nothing. */
  constructor(max: number) {
    this.#max = max;
  }

  /** The total size of the entries held. */
  get held(): number {
    return this.#held;
  }

  /** How many entries are held. */
  get count(): number {
    return this.#entries.size;
  }

  /** The same as `count`, as every cache of the registry shows it. */
  get size(): number {
    return this.#entries.size;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** The value, which becomes the most recently used. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!this.stats.count(entry !== undefined) || !entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /**
   * Keeps `value` as the most recently used, counted as `size`, forgetting others until the
   * total fits. A value larger than the whole bound is not kept, and what the key held before
   * is forgotten all the same: it is no longer the key's value.
   */
  set(key: K, value: V, size: number): void {
    if (size > this.#max) {
      this.delete(key);
      return;
    }
    this.delete(key);
    this.#entries.set(key, { value, size });
    this.#held += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#held <= this.#max) break;
      this.#entries.delete(oldest);
      this.#held -= entry.size;
    }
  }

  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return false;
    this.#entries.delete(key);
    this.#held -= entry.size;
    return true;
  }

  clear(): void {
    this.#entries.clear();
    this.#held = 0;
  }
}
