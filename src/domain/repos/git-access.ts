import { NotFound, Unauthenticated } from '../errors.ts';
import type { User } from '../users/user.types.ts';
import { mayPush } from './repo.policy.ts';
import type { RepoService } from './repo.service.ts';
import type { VisibleRepo } from './repo.types.ts';

/** What the access check reads: repositories, by name and by id. */
export type GitAccessRepos = Pick<RepoService, 'get' | 'require'>;

/** `name.git` and `name` both address the repository `name`. */
export function repoNameOf(segment: string): string {
  return segment.endsWith('.git') ? segment.slice(0, -4) : segment;
}

/**
 * The repository a git transport (smart HTTP, SSH) serves to `viewer`, with the access the
 * service needs, checked the same way for every transport: a repository the viewer may not
 * see is `NotFound`, exactly as a missing one; one they may read but not write is `Forbidden`
 * on push. An anonymous caller is `Unauthenticated` for anything it cannot do (a private or
 * missing repository, every push), so that a client knows to come back with credentials.
 */
export async function requireGitAccess(
  repos: GitAccessRepos,
  viewer: User | undefined,
  owner: string,
  name: string,
  write: boolean,
): Promise<VisibleRepo> {
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
