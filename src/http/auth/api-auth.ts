import type { FastifyRequest } from 'fastify';
import type { Services } from '../../app.ts';
import { Unauthenticated } from '../../domain/errors.ts';
import type { User } from '../../domain/users/user.types.ts';
import { parseAuthorization } from './credentials.ts';
import { ANONYMOUS, type Viewer } from './viewer.ts';

/**
 * The viewer of a token-authenticated request (REST, git). No header is anonymous; a header
 * that is malformed or names an unknown or revoked token is a 401 even on public endpoints,
 * as in Gitea, so a client with a stale token finds out at once.
 */
export async function viewerFromAuthorization(
  services: Services,
  header: string | undefined,
): Promise<Viewer> {
  const credentials = parseAuthorization(header);
  if (credentials.kind === 'none') return ANONYMOUS;
  if (credentials.kind === 'malformed') throw new Unauthenticated('invalid authorization header');
  const user = await services.tokens.authenticate(credentials.token);
  if (!user) throw new Unauthenticated('invalid or revoked access token');
  return { kind: 'user', user, via: 'token' };
}

/** The signed-in person, or a 401 that tells the client a token is needed. */
export function requireUser(request: FastifyRequest): User {
  if (request.viewer.kind !== 'user') throw new Unauthenticated('token is required');
  return request.viewer.user;
}
