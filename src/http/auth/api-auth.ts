import type { FastifyRequest } from 'fastify';
import { Unauthenticated } from '../../domain/errors.ts';
import type { DomainServices } from '../../domain/services.ts';
import type { TokenHolder } from '../../domain/tokens/token.service.ts';
import { actionsBotFor } from '../../domain/users/actions-bot.ts';
import type { User } from '../../domain/users/user.types.ts';
import { parseAuthorization } from './credentials.ts';
import { ANONYMOUS, type Viewer } from './viewer.ts';

/**
 * The viewer of a token-authenticated request (REST, git). No header is anonymous; a header
 * that is malformed or names an unknown, revoked or expired token is a 401 even on public endpoints,
 * as in Gitea, so a client with a stale token finds out at once. A live CI task token is
 * accepted too: its holder is the actions bot acting for that task, held to the task token's
 * scopes (no user, organisation or admin endpoint) and, by repo.policy.ts, to its repository.
 */
export async function viewerFromAuthorization(
  services: Pick<DomainServices, 'tokens' | 'ciTaskTokens'>,
  header: string | undefined,
): Promise<Viewer> {
  const credentials = parseAuthorization(header);
  if (credentials.kind === 'none') return ANONYMOUS;
  if (credentials.kind === 'malformed') throw new Unauthenticated('invalid authorization header');
  const holder = await services.tokens.authenticate(credentials.token);
  if (holder) return tokenViewer(holder);
  const grant = await services.ciTaskTokens.authenticate(credentials.token);
  if (grant) {
    const { scopes, ...scope } = grant;
    return { kind: 'user', user: actionsBotFor(scope), via: 'token', scopes };
  }
  throw new Unauthenticated('invalid or revoked access token');
}

/** The viewer a valid token makes: its owner, held to its scopes. */
export function tokenViewer(holder: TokenHolder): Viewer {
  return { kind: 'user', user: holder.user, via: 'token', scopes: holder.scopes };
}

/** The signed-in person, or a 401 that tells the client a token is needed. */
export function requireUser(request: FastifyRequest): User {
  if (request.viewer.kind !== 'user') throw new Unauthenticated('token is required');
  return request.viewer.user;
}
