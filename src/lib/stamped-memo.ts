import { BoundedMap } from './bounded-map.ts';
import { HitCounter } from './cache-registry.ts';

/**
 * Values remembered with the stamp they were read at (see db/change-clock.ts), handed back only
 * while the stamp is still the same: a stamp that moves makes every older entry stale at once,
 * without visiting them. An undefined stamp remembers and returns nothing. Bounded like
 * BoundedMap, since its keys come from requests.
 *
 * @example
 *   const value = await memo.read(key, changes.stamp(), () => query(key));
 */
export class StampedMemo<K, V> {
  readonly #entries: BoundedMap<K, { readonly stamp: number; readonly value: V }>;
  /** Lookups answered from memory (the stamp still the same), and those that were not. */
  readonly stats = new HitCounter();

  constructor(limit: number) {
    this.#entries = new BoundedMap(limit);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K, stamp: number | undefined): V | undefined {
    const entry = stamp === undefined ? undefined : this.#entries.peek(key);
    return this.stats.count(entry?.stamp === stamp && entry !== undefined)
      ? entry?.value
      : undefined;
  }

  /** `stamp` is the one taken before `value` was read, so a write in between makes it stale. */
  set(key: K, stamp: number | undefined, value: V): void {
    if (stamp !== undefined) this.#entries.set(key, { stamp, value });
  }

  /**
   * The value kept for `key` at `stamp`, else what `load` reads, kept at `stamp` (taken by the
   * caller before this call, so before the read). What `load` throws is not kept.
   */
  async read(key: K, stamp: number | undefined, load: () => Promise<V>): Promise<V> {
    const entry = stamp === undefined ? undefined : this.#entries.peek(key);
    if (this.stats.count(entry !== undefined && entry.stamp === stamp) && entry) return entry.value;
    const value = await load();
    this.set(key, stamp, value);
    return value;
  }

  /**
   * As `read`, for a lookup that may find nothing: what it finds is kept, an absence never is
   * (an insert can end it without moving a clock of existing rows, and strangers' misses must
   * not crowd out what exists).
   */
  async readFound(
    key: K,
    stamp: number | undefined,
    load: () => Promise<V | undefined>,
  ): Promise<V | undefined> {
    const known = this.get(key, stamp);
    if (known !== undefined) return known;
    const found = await load();
    if (found !== undefined) this.set(key, stamp, found);
    return found;
  }
}
