import type { FastifyReply, FastifyRequest } from 'fastify';
import { isOneOf, isRecord } from '../../lib/narrow.ts';

export type Flash = { readonly kind: 'success' | 'error' | 'warn'; readonly message: string };

const COOKIE = 'kiln_flash';
const KINDS: readonly Flash['kind'][] = ['success', 'error', 'warn'];

/** A one-shot message shown on the next page (after a redirect). Never carries secrets. */
export function setFlash(reply: FastifyReply, flash: Flash, secure: boolean): void {
  const value = Buffer.from(JSON.stringify(flash)).toString('base64url');
  reply.setCookie(COOKIE, value, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    maxAge: 60,
  });
}

/** Reads and clears the pending message, ignoring anything malformed. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply): Flash | undefined {
  const value = request.cookies[COOKIE];
  if (!value) return undefined;
  reply.clearCookie(COOKIE, { path: '/' });
  if (value.length > 2048) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (!isRecord(parsed)) return undefined;
    const { kind, message } = parsed;
    if (!isOneOf(KINDS, kind) || typeof message !== 'string') return undefined;
    return { kind, message: message.slice(0, 500) };
  } catch {
    return undefined;
  }
}
