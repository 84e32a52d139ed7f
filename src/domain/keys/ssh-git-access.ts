import { Forbidden } from '../errors.ts';
import { type GitAccessRepos, repoNameOf, requireGitAccess } from '../repos/git-access.ts';
import type { Repository } from '../repos/repo.types.ts';
import { repoNotFound } from '../repos/repo-access.service.ts';
import type { User } from '../users/user.types.ts';
import type { SshPrincipal } from './ssh-key.service.ts';

/** The repository an SSH git command serves, and whom a push is attributed to. */
export type SshGitTarget = { readonly repo: Repository; readonly pusher: User | undefined };

/**
 * The access an SSH key gives to `owner/name`. A person's key is that person, under the rules
 * every git transport shares (`requireGitAccess`). A deploy key opens its own repository and no
 * other: any other name, existing or not, private or public, is refused as a missing
 * repository, and a read-only deploy key never pushes.
 */
export async function sshGitAccess(
  repos: GitAccessRepos,
  principal: SshPrincipal,
  owner: string,
  name: string,
  write: boolean,
): Promise<SshGitTarget> {
  if (principal.kind === 'user') {
    const { repo } = await requireGitAccess(repos, principal.user, owner, name, write);
    return { repo, pusher: principal.user };
  }
  const { repo, key, pusher } = principal;
  const wanted = repoNameOf(name);
  if (
    repo.owner.handle.toLowerCase() !== owner.toLowerCase() ||
    repo.name.toLowerCase() !== wanted.toLowerCase()
  ) {
    throw repoNotFound(owner, wanted);
  }
  if (write && key.readOnly) throw new Forbidden('this deploy key is read-only');
  if (write && !pusher) {
    throw new Forbidden('the account that added this deploy key can no longer push');
  }
  return { repo, pusher };
}
