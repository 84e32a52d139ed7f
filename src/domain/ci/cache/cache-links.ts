import { createHmac, randomBytes } from 'node:crypto';
import { safeEqual } from '../../../lib/crypto.ts';

/** How long a download link stays valid: the client fetches it right after the lookup. */
export const LINK_TTL_MS = 10 * 60_000;

/** The query of a signed download link of one entry. */
export type CacheLink = { readonly id: number; readonly expires: number; readonly sig: string };

/** A new entry's link key: 32 random bytes, hex. */
export function newLinkSecret(): string {
  return randomBytes(32).toString('hex');
}

function signatureOf(secret: string, id: number, expires: number): string {
  return createHmac('sha256', Buffer.from(secret, 'hex'))
    .update(`ci-cache:${id}:${expires}`)
    .digest('base64url');
}

/** Signs a link to entry `id` that expires `LINK_TTL_MS` after `now`. */
export function signLink(secret: string, id: number, now: number): CacheLink {
  const expires = Math.ceil((now + LINK_TTL_MS) / 1000);
  return { id, expires, sig: signatureOf(secret, id, expires) };
}

/**
 * Whether `link` was signed with `secret` and has not expired. The invariant: an archive is
 * served without a bearer only against a signature made with its own entry's key, so a link
 * names one entry for ten minutes and cannot be turned into a link to any other.
 */
export function linkIsValid(secret: string, link: CacheLink, now: number): boolean {
  if (link.expires * 1000 < now) return false;
  return safeEqual(link.sig.replace(/=+$/, ''), signatureOf(secret, link.id, link.expires));
}
