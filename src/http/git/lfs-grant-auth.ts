import type { FastifyRequest } from 'fastify';
import { Unauthenticated } from '../../domain/errors.ts';
import {
  type LfsGrantDeps,
  type LfsSshClaims,
  lfsGrantAccess,
} from '../../domain/lfs/lfs-ssh-grant.ts';
import type { VisibleRepo } from '../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../domain/services.ts';
import { viewerFromAuthorization } from '../auth/api-auth.ts';
import { ANONYMOUS, type Viewer } from '../auth/viewer.ts';
import { gitAccess } from './git-access.ts';

/** What the LFS edge's authentication reads: tokens, SSH grants, the keys behind them. */
export type LfsAuthServices = Pick<DomainServices, 'tokens' | 'ciTaskTokens' | 'lfsSshGrants'> &
  LfsGrantDeps;

/**
 * Authentication for the LFS routes, and only for them: besides git's own credentials, the
 * grants `git-lfs-authenticate` hands out over SSH (`Bearer kiln-lfs-ssh:…`). A grant that is
 * forged or expired is a 401, so git-lfs asks over SSH again; a valid one is kept beside the
 * request and decides its access (`access`), never the viewer's.
 */
export function lfsAuthentication(services: LfsAuthServices) {
  const grants = new WeakMap<FastifyRequest, LfsSshClaims>();

  /** The viewer of a request: anonymous until `access` has checked a grant. */
  const viewerOf = async (request: FastifyRequest): Promise<Viewer> => {
    const token = bearerOf(request.headers.authorization);
    if (token === undefined || !services.lfsSshGrants.claims(token)) {
      return viewerFromAuthorization(services, request.headers.authorization);
    }
    const claims = services.lfsSshGrants.verify(token);
    if (!claims) throw new Unauthenticated('the LFS credential has expired or is not valid');
    grants.set(request, claims);
    return ANONYMOUS;
  };

  /** git's access check for the request's repository, or the grant's when it carries one. */
  const access = async (
    request: FastifyRequest,
    owner: string,
    name: string,
    write: boolean,
  ): Promise<VisibleRepo> => {
    const claims = grants.get(request);
    if (!claims) return gitAccess(services.repos, request, owner, name, write);
    const { visible, user } = await lfsGrantAccess(services, claims, owner, name, write);
    // The lock routes name the person acting; the grant's access stays what was checked here.
    if (user) request.viewer = { kind: 'user', user, via: 'password' };
    return visible;
  };

  /** Seconds the grant of a request has left, for the actions it is answered with. */
  const grantSecondsLeft = (request: FastifyRequest, now = Date.now()): number | undefined => {
    const claims = grants.get(request);
    return claims && Math.max(0, Math.floor((claims.expiresAt - now) / 1000));
  };

  return { viewerOf, access, grantSecondsLeft };
}

function bearerOf(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^bearer +(\S{1,4096}) *$/i.exec(header);
  return match?.[1];
}
