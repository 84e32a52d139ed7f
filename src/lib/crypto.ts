import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Hex SHA-256 of a UTF-8 string: how every token is stored. The one-shot `hash` makes no Hash
 * object: it takes about half the time, and every runner call hashes its token.
 */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/** A random secret of `bytes` bytes as lowercase hex (40 hex chars for 20 bytes = 160 bits). */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
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
