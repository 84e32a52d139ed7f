import type { FastifyRequest } from 'fastify';
import { type GitAccessRepos, requireGitAccess } from '../../domain/repos/git-access.ts';
import type { VisibleRepo } from '../../domain/repos/repo.types.ts';
import { requireViewerScope } from '../auth/token-scope.ts';
import { viewerUser } from '../auth/viewer.ts';

export { type GitAccessRepos, repoNameOf } from '../../domain/repos/git-access.ts';

/**
 * Resolves the repository of a git request and checks the access the service needs, by the
 * rules every git transport shares (`requireGitAccess`), which git understands over HTTP:
 * anonymous callers get a 401 challenge for anything they cannot do, so git retries with
 * credentials; a signed-in caller who may not see the repository gets 404; one who may read
 * but not write gets 403 on push. A token needs `read:repository` to fetch and
 * `write:repository` to push (403 with the scope named, which git prints), whatever its owner
 * may do. A CI task token is the actions bot and goes the same way: its access is its task's
 * grant (repo.policy.ts).
 */
export async function gitAccess(
  repos: GitAccessRepos,
  request: FastifyRequest,
  owner: string,
  name: string,
  write: boolean,
): Promise<VisibleRepo> {
  requireViewerScope(request.viewer, write ? 'write' : 'read', ['repository']);
  return requireGitAccess(repos, viewerUser(request.viewer), owner, name, write);
}
