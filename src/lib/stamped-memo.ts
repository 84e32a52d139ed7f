import { BoundedMap } from './bounded-map.ts';

/**
 * Values remembered with the stamp they were read at (see db/change-clock.ts), handed back only
 * while the stamp is still the same: a stamp that moves makes every older entry stale at once,
 * without visiting them. An undefined stamp remembers and returns nothing. Bounded like
 * BoundedMap, since its keys come from requests.
 *
 * @example
 *   const stamp = changes.stamp(); // before reading
 *   const known = memo.get(key, stamp);
 *   if (known) return known;
 *   const value = await read();
 *   memo.set(key, stamp, value);
 */
export class StampedMemo<K, V> {
  readonly #entries: BoundedMap<K, { readonly stamp: number; readonly value: V }>;

  constructor(limit: number) {
    this.#entries = new BoundedMap(limit);
  }

  get(key: K, stamp: number | undefined): V | undefined {
    if (stamp === undefined) return undefined;
    const entry = this.#entries.get(key);
    return entry?.stamp === stamp ? entry.value : undefined;
  }

  /** `stamp` is the one taken before `value` was read, so a write in between makes it stale. */
  set(key: K, stamp: number | undefined, value: V): void {
    if (stamp !== undefined) this.#entries.set(key, { stamp, value });
  }
}
