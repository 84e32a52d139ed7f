/**
 * Where to send a caller after a solved challenge (SPEC.md → Errors, additional rules): only a
 * server-relative path with a single leading slash is followed; anything else yields `/`.
 * contracts/bot-protection.md §4 lists the attacks this guards against.
 *
 * Check the string the framework has already percent-decoded once, and return that very string:
 * never rebuild it from a parsed URL (`/.//evil.com` parses to the path `//evil.com`) and never
 * decode it again.
 */

export const MAX_REDIRECT_LENGTH = 2048;

const FALLBACK = '/';
const ORIGIN = 'http://origin.invalid';
/** Printable ASCII without space and backslash; `?`, `#`, `%` and `&` may appear. */
const ALLOWED_CHARS = /^[\x21-\x5b\x5d-\x7e]+$/;
/** Encoded `/`, `\` or control characters: harmless only until something decodes again. */
const ENCODED_DANGER = /%(?:2f|5c|[01][0-9a-f]|7f)/i;

/** `value` when it is a safe local redirect target, otherwise `/`. */
export function safeRedirectTarget(value: unknown): string {
  return isSafeRedirectTarget(value) ? value : FALLBACK;
}

function isSafeRedirectTarget(value: unknown): value is string {
  if (typeof value !== 'string' || value.length < 1 || value.length > MAX_REDIRECT_LENGTH) {
    return false;
  }
  if (value[0] !== '/' || value[1] === '/' || value[1] === '\\') return false;
  if (!ALLOWED_CHARS.test(value)) return false;
  const path = value.split(/[?#]/, 1)[0]!;
  if (path.includes('//') || ENCODED_DANGER.test(path)) return false;
  // Back to the challenge would loop.
  const lowerPath = path.toLowerCase();
  if (lowerPath === '/challenge' || lowerPath.startsWith('/challenge/')) return false;
  try {
    return new URL(value, ORIGIN).origin === ORIGIN;
  } catch {
    return false;
  }
}

/**
 * The `Location` for sending an over-budget anonymous caller to the challenge, carrying the
 * original target (`request.url`, still percent-encoded) when it is safe to come back to.
 *
 * @example challengeLocation('/repos/a/b/commit/abc') // '/challenge?redirect=%2Frepos%2Fa%2Fb%2Fcommit%2Fabc'
 */
export function challengeLocation(originalTarget: string): string {
  return `/challenge?redirect=${encodeURIComponent(safeRedirectTarget(originalTarget))}`;
}
