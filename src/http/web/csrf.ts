import type { FastifyReply, FastifyRequest } from 'fastify';
import { Forbidden } from '../../domain/errors.ts';
import { randomHex, safeEqual } from '../../lib/crypto.ts';

export const CSRF_COOKIE = 'kiln_csrf';
export const CSRF_FIELD = '_csrf';
const TOKEN = /^[0-9a-f]{32}$/;

/**
 * Double-submit CSRF protection for forms: a random HttpOnly, SameSite=Lax cookie whose value
 * every form repeats in a hidden field. A cross-site page can neither read the cookie nor make
 * the browser send it on a cross-site POST, so it cannot produce a matching pair.
 */
export function csrfToken(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const existing = request.cookies[CSRF_COOKIE];
  if (existing && TOKEN.test(existing)) return existing;
  const token = randomHex(16);
  reply.setCookie(CSRF_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'lax', secure });
  // Pages rendered in the same response read it back from here.
  request.cookies[CSRF_COOKIE] = token;
  return token;
}

/** Throws Forbidden unless the form's token matches the cookie. */
export function assertCsrf(request: FastifyRequest): void {
  const cookie = request.cookies[CSRF_COOKIE];
  const body = request.body as Record<string, unknown> | undefined;
  const field = body && typeof body === 'object' ? body[CSRF_FIELD] : undefined;
  if (!cookie || typeof field !== 'string' || !TOKEN.test(cookie) || !safeEqual(cookie, field)) {
    throw new Forbidden('The form has expired or did not come from this site. Please try again.');
  }
}
