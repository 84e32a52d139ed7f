import { createHmac, timingSafeEqual } from 'node:crypto';
import { isRecord } from './narrow.ts';

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/** Signs `claims` as an HS256 JSON Web Token with `key`. */
export function signJwt(key: Buffer, claims: Record<string, unknown>): string {
  const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/**
 * The claims of an HS256 token signed with `key`, or undefined for anything else: another
 * algorithm, a bad signature, a body that is not a JSON object. Expiry is the caller's to check.
 * Bounded: a token longer than 4 KiB is refused before it is hashed.
 */
export function verifyJwt(key: Buffer, token: string): Record<string, unknown> | undefined {
  if (token.length > 4096) return undefined;
  const [header, body, signature, extra] = token.split('.');
  if (header !== HEADER || body === undefined || signature === undefined || extra !== undefined) {
    return undefined;
  }
  const expected = createHmac('sha256', key).update(`${header}.${body}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return isRecord(claims) ? claims : undefined;
  } catch {
    return undefined;
  }
}
