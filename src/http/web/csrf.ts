import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Forbidden } from '../../domain/errors.ts';
import { randomHex, safeEqual } from '../../lib/crypto.ts';
import { formValue } from './forms.ts';
import { SESSION_COOKIE } from './session-cookie.ts';

export const CSRF_COOKIE = 'kiln_csrf';
export const CSRF_FIELD = '_csrf';
const TOKEN = /^[0-9a-f]{32}$/;

/**
 * CSRF protection for forms.
 *
 * Signed in, the token is bound to the session: an HMAC of the session secret, which lives only
 * in the HttpOnly session cookie. Nobody without that secret can compute it, so a token pair
 * chosen by an attacker (a `kiln_csrf` cookie planted through a sibling subdomain plus the same
 * value in the form) is refused, and a new sign-in brings a new token. Nothing is stored: every
 * replica derives the same token.
 *
 * Signed out (the sign-in and sign-up forms), it is the double-submit pattern: a random
 * HttpOnly, SameSite=Lax cookie that the form repeats. A cross-site page can neither read the
 * cookie nor make the browser send it on a cross-site POST. The cookie also carries the signed-in
 * token, so it always names the token the current pages use; for a session it is not consulted.
 */
export function csrfToken(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const bound = sessionSecret(request);
  const existing = request.cookies[CSRF_COOKIE];
  if (bound !== undefined) {
    const token = sessionToken(bound);
    if (existing !== token) setToken(request, reply, token, secure);
    return token;
  }
  if (existing && TOKEN.test(existing)) return existing;
  const token = randomHex(16);
  setToken(request, reply, token, secure);
  return token;
}

/**
 * Replaces the browser's token at sign-in (`secret` of the new session) and sign-out
 * (undefined: a fresh random one), so no token outlives the sign-in it was issued for.
 */
export function rotateCsrf(
  request: FastifyRequest,
  reply: FastifyReply,
  secret: string | undefined,
  secure: boolean,
): void {
  setToken(request, reply, secret === undefined ? randomHex(16) : sessionToken(secret), secure);
}

/** Throws Forbidden unless the form's token is the session's (signed in) or the cookie's. */
export function assertCsrf(request: FastifyRequest): void {
  const field = formValue(request.body, CSRF_FIELD);
  const bound = sessionSecret(request);
  const expected = bound === undefined ? request.cookies[CSRF_COOKIE] : sessionToken(bound);
  if (
    !expected ||
    typeof field !== 'string' ||
    !TOKEN.test(expected) ||
    !safeEqual(expected, field)
  ) {
    throw new Forbidden('The form has expired or did not come from this site. Please try again.');
  }
}

/** The secret of the session that signed this request in, if a session did. */
function sessionSecret(request: FastifyRequest): string | undefined {
  if (request.viewer?.kind !== 'user' || request.viewer.via !== 'session') return undefined;
  return request.cookies[SESSION_COOKIE];
}

function sessionToken(secret: string): string {
  return createHmac('sha256', secret).update('kiln form token').digest('hex').slice(0, 32);
}

function setToken(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  secure: boolean,
): void {
  reply.setCookie(CSRF_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'lax', secure });
  // Pages rendered in the same response read it back from here.
  request.cookies[CSRF_COOKIE] = token;
}
