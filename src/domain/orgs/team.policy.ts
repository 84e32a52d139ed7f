import { Invalid } from '../errors.ts';
import { type AccessLevel, atLeast, type CollaboratorPermission } from '../repos/repo.types.ts';
import { OWNERS_TEAM_NAME, type Team, type TeamGrant } from './team.types.ts';

/** Gitea's rule for team names: letters, digits, dash, underscore and dot, at most 255. */
const TEAM_NAME = /^[A-Za-z0-9_.-]{1,255}$/;

/**
 * The highest level the teams give over one repository of an organisation, or undefined when
 * none covers it. A team counts only for repositories of its own organisation.
 */
export function teamLevelOn(
  grants: readonly TeamGrant[],
  repo: { readonly id: string; readonly ownerId: string },
): CollaboratorPermission | undefined {
  let best: CollaboratorPermission | undefined;
  for (const grant of grants) {
    if (grant.orgId !== repo.ownerId) continue;
    if (!grant.includesAllRepositories && !grant.repoIds.has(repo.id)) continue;
    if (!best || !atLeast(best, grant.permission)) best = grant.permission;
  }
  return best;
}

/** The higher of two levels, either of which may be absent. */
export function higherLevel<T extends AccessLevel>(
  a: T | undefined,
  b: T | undefined,
): T | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return atLeast(a, b) ? a : b;
}

/** Whether the team is its organisation's Owners team, whose members are the owners. */
export function isOwnersTeam(team: Pick<Team, 'permission'>): boolean {
  return team.permission === 'owner';
}

/** A team's permission as a client sends it: read, write or admin. */
export function parseTeamPermission(value: string): CollaboratorPermission {
  if (value === 'read' || value === 'write' || value === 'admin') return value;
  throw new Invalid('permission must be read, write or admin');
}

/** A team's name, checked: Gitea's characters, and never a second Owners team. */
export function checkedTeamName(value: string): string {
  const name = value.trim();
  if (!TEAM_NAME.test(name)) {
    throw new Invalid('team name must be 1 to 255 letters, digits, dashes, underscores or dots');
  }
  if (name.toLowerCase() === OWNERS_TEAM_NAME.toLowerCase()) {
    throw new Invalid(`the name ${OWNERS_TEAM_NAME} is the owners team's`);
  }
  return name;
}

/** A team's description, checked for length. */
export function checkedTeamDescription(value: string): string {
  const description = value.trim();
  if (description.length > 255) throw new Invalid('description must be at most 255 characters');
  return description;
}
