import type { OrgSettings } from '../domain/orgs/org.service.ts';
import type { Team } from '../domain/orgs/team.types.ts';
import type { Account } from '../domain/users/user.types.ts';
import type { ConvertContext } from './context.ts';
import { toApiOrganization } from './org.ts';
import type { ApiTeam } from './schemas/team.ts';

/** The parts of a repository Kiln has, as Gitea names its units. */
const KILN_UNITS = ['repo.actions', 'repo.code', 'repo.pulls', 'repo.releases'] as const;

/** Gitea's Team: every unit at the team's one level. */
export function toApiTeam(
  team: Team,
  org: Account,
  settings: OrgSettings,
  context: ConvertContext,
): ApiTeam {
  return {
    id: team.wireId,
    name: team.name,
    description: team.description,
    organization: toApiOrganization(org, settings, context),
    includes_all_repositories: team.includesAllRepositories,
    permission: team.permission,
    units: [...KILN_UNITS],
    units_map: Object.fromEntries(KILN_UNITS.map((unit) => [unit, team.permission])),
    can_create_org_repo: team.canCreateOrgRepo,
  };
}
