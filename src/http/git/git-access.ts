import type { FastifyRequest } from 'fastify';
import { Forbidden, NotFound, Unauthenticated } from '../../domain/errors.ts';
import { mayPush } from '../../domain/repos/repo.policy.ts';
import type { RepoService } from '../../domain/repos/repo.service.ts';
import type { VisibleRepo } from '../../domain/repos/repo.types.ts';
import { requireViewerScope } from '../auth/token-scope.ts';
import { viewerUser } from '../auth/viewer.ts';

/** What the access check reads: repositories, by name and by id. */
export type GitAccessRepos = Pick<RepoService, 'get' | 'require' | 'findById'>;

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
  repos: GitAccessRepos,
  request: FastifyRequest,
  owner: string,
  name: string,
  write: boolean,
): Promise<VisibleRepo> {
  if (request.viewer.kind === 'task') {
    return taskAccess(repos, request.viewer.repoId, owner, repoNameOf(name), write);
  }
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

/**
 * A CI task token reads its own repository, whatever its visibility, and nothing else: another
 * repository is 404 as if it did not exist, and a push is refused.
 */
async function taskAccess(
  repos: GitAccessRepos,
  repoId: string,
  owner: string,
  name: string,
  write: boolean,
): Promise<VisibleRepo> {
  const repo = await repos.findById(repoId);
  const same =
    repo !== undefined &&
    repo.owner.handle.toLowerCase() === owner.toLowerCase() &&
    repo.name.toLowerCase() === name.toLowerCase();
  if (!same) throw new NotFound('repository not found');
  if (write) throw new Forbidden('a CI task token may not push');
  return { repo, access: { level: 'read' } };
}
