import type { Repository } from '../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../domain/services.ts';
import type { Account, User } from '../../domain/users/user.types.ts';

/**
 * The accounts a person may create repositories in: themselves, then organisations they own or
 * belong to a team of that may create repositories.
 */
export async function creatableOwners(
  services: Pick<DomainServices, 'orgs' | 'users'> & Partial<Pick<DomainServices, 'teams'>>,
  user: User,
): Promise<Account[]> {
  const [memberships, teams] = await Promise.all([
    services.orgs.membershipsOf(user.id),
    services.teams?.teamsOf(user) ?? [],
  ]);
  const owned = [...memberships].filter(([, role]) => role === 'owner').map(([id]) => id);
  const creators = teams.filter((view) => view.team.canCreateOrgRepo).map((v) => v.team.orgId);
  const accounts = await services.users.findManyByIds([...new Set([...owned, ...creators])]);
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
