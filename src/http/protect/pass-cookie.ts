import { createHash, createHmac } from 'node:crypto';
import { safeEqual } from '../../lib/crypto.ts';

/**
 * The challenge pass (SPEC.md → Authentication → Challenge pass): cookie `service_human` with the
 * value `<expiry-epoch-seconds>.<hex HMAC-SHA256>`. Stateless, so it survives restarts and works
 * on every replica that shares the captcha secret key.
 *
 * MAC key: the SHA-256 digest (32 raw bytes) of the captcha secret key, as SPEC.md says.
 * MAC message: the expiry digits exactly as they appear in the cookie, so any replica (or an
 * operator's script) can check a pass from the value and the secret alone. Rotating the captcha
 * secret revokes every pass.
 */

export const PASS_COOKIE_NAME = 'service_human';

/** Longest value ever looked at: 12 expiry digits, a dot and 64 hex digits fit well inside. */
export const MAX_PASS_VALUE_LENGTH = 128;

const PASS_VALUE = /^([1-9][0-9]{0,11})\.([0-9a-f]{64})$/;
/** Replicas' clocks may differ a little; a pass issued by one stays acceptable to the others. */
const CLOCK_SKEW_SECONDS = 60;

/** Cookie attributes in the shape `@fastify/cookie`'s `setCookie` takes. */
export interface PassCookieAttributes {
  readonly httpOnly: true;
  readonly sameSite: 'lax';
  readonly path: '/';
  readonly secure: boolean;
  /** Seconds until the embedded expiry. */
  readonly maxAge: number;
}

export interface IssuedPass {
  readonly name: typeof PASS_COOKIE_NAME;
  readonly value: string;
  /** The embedded expiry, epoch seconds. */
  readonly expiresAtSeconds: number;
  readonly attributes: PassCookieAttributes;
  /** The whole `Set-Cookie` header value, for callers without `@fastify/cookie`. */
  readonly setCookie: string;
}

export interface IssuePassOptions {
  /** Mark the cookie `Secure`: set it when the external base URL (or request) is https. */
  readonly secure: boolean;
}

export interface VerifyPassOptions {
  /**
   * The configured pass lifetime. When given, a pass expiring later than now + lifetime (plus a
   * minute of clock skew) is refused, so lowering the lifetime also shortens passes already out.
   */
  readonly maxLifetimeSeconds?: number;
}

function macKey(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

function mac(secret: string, expiry: string): string {
  return createHmac('sha256', macKey(secret)).update(expiry, 'utf8').digest('hex');
}

/**
 * Mints a pass valid for `lifetimeSeconds` from `nowMs` (epoch milliseconds).
 *
 * @example issuePass(captchaSecret, 86_400, Date.now(), { secure: true }).setCookie
 * // 'service_human=1767312000.3f…; Max-Age=86400; Path=/; HttpOnly; SameSite=Lax; Secure'
 */
export function issuePass(
  secret: string,
  lifetimeSeconds: number,
  nowMs: number,
  options: IssuePassOptions,
): IssuedPass {
  if (secret === '') throw new Error('cannot issue a challenge pass without a captcha secret key');
  if (!Number.isSafeInteger(lifetimeSeconds) || lifetimeSeconds < 1) {
    throw new RangeError(`pass lifetime must be a positive whole number of seconds`);
  }
  const expiresAtSeconds = Math.floor(nowMs / 1000) + lifetimeSeconds;
  const expiry = String(expiresAtSeconds);
  const value = `${expiry}.${mac(secret, expiry)}`;
  const attributes: PassCookieAttributes = {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: options.secure,
    maxAge: lifetimeSeconds,
  };
  const setCookie =
    `${PASS_COOKIE_NAME}=${value}; Max-Age=${lifetimeSeconds}; Path=/; HttpOnly; SameSite=Lax` +
    (options.secure ? '; Secure' : '');
  return { name: PASS_COOKIE_NAME, value, expiresAtSeconds, attributes, setCookie };
}

/**
 * Whether `value` is a pass this service issued with `secret` and that has not expired at
 * `nowMs`. Anything else (absent, overlong, malformed, tampered, expired, no secret) is simply
 * invalid: callers treat the request as anonymous, never as an error.
 */
export function verifyPass(
  value: string | undefined,
  secret: string,
  nowMs: number,
  options: VerifyPassOptions = {},
): boolean {
  if (typeof value !== 'string' || value.length > MAX_PASS_VALUE_LENGTH || secret === '') {
    return false;
  }
  const match = PASS_VALUE.exec(value);
  if (match === null) return false;
  const expiry = match[1]!;
  const expiresAtSeconds = Number(expiry);
  if (expiresAtSeconds * 1000 <= nowMs) return false;
  const { maxLifetimeSeconds } = options;
  if (
    maxLifetimeSeconds !== undefined &&
    expiresAtSeconds > Math.floor(nowMs / 1000) + maxLifetimeSeconds + CLOCK_SKEW_SECONDS
  ) {
    return false;
  }
  return safeEqual(match[2]!, mac(secret, expiry));
}
