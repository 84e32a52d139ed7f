import { hash, randomUUID } from 'node:crypto';
import { BoundedMap } from './bounded-map.ts';
import { pureCache } from './pure-caches.ts';

/** A new internal key. */
export function newId(): string {
  return randomUUID();
}

const MAX_SAFE = (1n << 53n) - 1n;
const FOLD_MEMO_SIZE = 10_000;
/** Every object on the wire folds its ids again; the recent ones are remembered. */
const folded = pureCache(
  { name: 'folded_ids', key: 'UUID', bound: '10,000 ids' },
  new BoundedMap<string, number>(FOLD_MEMO_SIZE),
);

/**
 * The wire `id` of an entity: a one-way fold of its UUID to an integer in [0, 2^53-1], exact in
 * JavaScript and Go clients. Display only: nothing is ever looked up by it.
 */
export function foldId(uuid: string): number {
  const known = folded.get(uuid);
  if (known !== undefined) return known;
  const digest = hash('sha256', uuid.toLowerCase(), 'buffer');
  const bits = digest.readBigUInt64BE(0) & MAX_SAFE;
  // 0 is Go's zero value and reads as "absent" to some clients; keep ids positive.
  const id = bits === 0n ? 1 : Number(bits);
  folded.set(uuid, id);
  return id;
}
