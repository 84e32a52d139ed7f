import type { FastifyRequest } from 'fastify';
import type { App } from '../../app.ts';
import { NotFound, Unauthenticated } from '../../domain/errors.ts';
import { atLeast, type VisibleRepo } from '../../domain/repos/repo.types.ts';
import { requireViewerScope } from '../auth/token-scope.ts';
import { viewerUser } from '../auth/viewer.ts';

/** `name.git` and `name` both address the repository `name`. */
export function repoNameOf(segment: string): string {
  return segment.endsWith('.git') ? segment.slice(0, -4) : segment;
}

/**
 * Resolves the repository of a git request and checks the access the service needs, with the
 * answers git understands: anonymous callers get a 401 challenge for anything they cannot do
 * (private repositories, every push), so git retries with credentials; a signed-in caller who
 * may not see the repository gets 404; one who may read but not write gets 403 on push. A
 * token needs `read:repository` to fetch and `write:repository` to push (403 with the scope
 * named, which git prints), whatever its owner may do.
 */
export async function gitAccess(
  app: App,
  request: FastifyRequest,
  owner: string,
  name: string,
  write: boolean,
): Promise<VisibleRepo> {
  requireViewerScope(request.viewer, write ? 'write' : 'read', ['repository']);
  const viewer = viewerUser(request.viewer);
  let visible: VisibleRepo;
  try {
    visible = await app.services.repos.get(viewer, owner, repoNameOf(name));
  } catch (error) {
    if (error instanceof NotFound && !viewer) throw new Unauthenticated('Authentication required.');
    throw error;
  }
  if (write && !viewer) throw new Unauthenticated('Authentication required.');
  if (write && !atLeast(visible.access.level, 'write')) {
    await app.services.repos.require(viewer, owner, repoNameOf(name), 'write');
  }
  return visible;
}
