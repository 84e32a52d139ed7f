import { createHash, randomUUID } from 'node:crypto';

/** A new internal key. */
export function newId(): string {
  return randomUUID();
}

const MAX_SAFE = (1n << 53n) - 1n;

/**
 * The wire `id` of an entity: a one-way fold of its UUID to an integer in [0, 2^53-1], exact in
 * JavaScript and Go clients. Display only: nothing is ever looked up by it.
 */
export function foldId(uuid: string): number {
  const digest = createHash('sha256').update(uuid.toLowerCase(), 'utf8').digest();
  const folded = digest.readBigUInt64BE(0) & MAX_SAFE;
  // 0 is Go's zero value and reads as "absent" to some clients; keep ids positive.
  return folded === 0n ? 1 : Number(folded);
}
