import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DomainServices } from '../../domain/services.ts';
import { ANONYMOUS, type Viewer } from '../auth/viewer.ts';

export const SESSION_COOKIE = 'kiln_session';

/** The viewer of a browser request: the session cookie's person, or anonymous. */
export async function viewerFromSession(
  services: Pick<DomainServices, 'sessions'>,
  request: FastifyRequest,
): Promise<Viewer> {
  const secret = request.cookies[SESSION_COOKIE];
  if (!secret) return ANONYMOUS;
  const user = await services.sessions.resolve(secret);
  return user ? { kind: 'user', user, via: 'session' } : ANONYMOUS;
}

export function setSessionCookie(
  reply: FastifyReply,
  session: { secret: string; expiresAt: Date },
  secure: boolean,
): void {
  reply.setCookie(SESSION_COOKIE, session.secret, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
    expires: session.expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}
