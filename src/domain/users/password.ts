import { randomBytes, timingSafeEqual } from 'node:crypto';
import { scryptOffThread } from '../../hashing/scrypt-pool.ts';

const COST = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

/** `scrypt$N$r$p$salt$hash` with a per-user random salt; both parts base64. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptOffThread(password, salt, KEY_LENGTH, { ...COST, maxmem: MAX_MEMORY });
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), hash.toString('base64')].join(
    '$',
  );
}

/** Constant-time check of a password against a stored hash; malformed hashes never match. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltText, hashText] = parts as [string, string, string, string, string, string];
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (![cost.N, cost.r, cost.p].every(Number.isSafeInteger) || cost.N > 1 << 20) return false;
  const expected = Buffer.from(hashText, 'base64');
  if (expected.length === 0) return false;
  const actual = await scryptOffThread(password, Buffer.from(saltText, 'base64'), expected.length, {
    ...cost,
    maxmem: MAX_MEMORY,
  });
  return timingSafeEqual(actual, expected);
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends exactly what `verifyPassword` spends on a real account, then says no. Signing in with
 * an unknown name must cost the same time as with a known one, or the answer's delay would tell
 * which names exist; the dummy hash is made once with the same cost parameters.
 */
export async function verifyNothing(password: string): Promise<false> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(password, await dummyHash);
  return false;
}
