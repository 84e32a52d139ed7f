import type { FastifyRequest } from 'fastify';
import { NotFound, Unauthenticated } from '../../domain/errors.ts';
import { mayPush } from '../../domain/repos/repo.policy.ts';
import type { RepoService } from '../../domain/repos/repo.service.ts';
import type { VisibleRepo } from '../../domain/repos/repo.types.ts';
import { requireViewerScope } from '../auth/token-scope.ts';
import { viewerUser } from '../auth/viewer.ts';

/** What the access check reads: repositories, by name and by id. */
export type GitAccessRepos = Pick<RepoService, 'get' | 'require'>;

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
 * named, which git prints), whatever its owner may do. A CI task token is the actions bot and
 * goes the same way: its access is its task's grant (repo.policy.ts).
 */
export async function gitAccess(
  repos: GitAccessRepos,
  request: FastifyRequest,
  owner: string,
  name: string,
  write: boolean,
): Promise<VisibleRepo> {
  requireViewerScope(request.viewer, write ? 'write' : 'read', ['repository']);
  const viewer = viewerUser(request.viewer);
  let visible: VisibleRepo;
  try {
    visible = await repos.get(viewer, owner, repoNameOf(name));
  } catch (error) {
    if (error instanceof NotFound && !viewer) throw new Unauthenticated('Authentication required.');
    throw error;
  }
  if (write && !viewer) throw new Unauthenticated('Authentication required.');
  if (write && !mayPush(visible.access)) {
    await repos.require(viewer, owner, repoNameOf(name), 'write');
  }
  return visible;
}
