import { hash, randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';

/**
 * Hex SHA-256 of a UTF-8 string: how every token is stored. The one-shot `hash` makes no Hash
 * object: it takes about half the time, and every runner call hashes its token.
 */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/**
 * Random bytes drawn ahead, a few kilobytes at a time, as `crypto.randomUUID` does: one call into
 * the CSPRNG per 4 KB instead of one per secret (a registering runner, a session or a token each
 * make one). Every byte is handed out once and zeroed as it is.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** A random secret of `bytes` bytes as lowercase hex (40 hex chars for 20 bytes = 160 bits). */
export function randomHex(bytes: number): string {
  if (bytes > pool.length / 8) return randomBytes(bytes).toString('hex');
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const end = poolOffset + bytes;
  const hex = pool.toString('hex', poolOffset, end);
  pool.fill(0, poolOffset, end);
  poolOffset = end;
  return hex;
}

/** Constant-time comparison of two strings; unequal lengths compare false without early exit on content. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
