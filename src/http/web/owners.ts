import type { Repository } from '../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../domain/services.ts';
import type { Account, User } from '../../domain/users/user.types.ts';

/** The accounts a person may create repositories in: themselves, then organisations they own. */
export async function creatableOwners(
  services: Pick<DomainServices, 'orgs' | 'users'>,
  user: User,
): Promise<Account[]> {
  const memberships = await services.orgs.membershipsOf(user.id);
  const owned = [...memberships].filter(([, role]) => role === 'owner').map(([id]) => id);
  const accounts = await services.users.findManyByIds(owned);
  const orgs = [...accounts.values()].sort((a, b) => a.handle.localeCompare(b.handle, 'en'));
  return [user, ...orgs];
}

/** The parent of a fork, when it still exists and the viewer may see it. */
export async function visibleParent(
  services: Pick<DomainServices, 'repos'>,
  viewer: User | undefined,
  repo: Repository,
): Promise<Repository | undefined> {
  if (!repo.parentId) return undefined;
  const parent = await services.repos.findById(repo.parentId);
  if (!parent) return undefined;
  const [visible] = await services.repos.accessOfMany(viewer, [parent]);
  return visible?.repo;
}
