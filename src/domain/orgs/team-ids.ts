import { Invalid } from '../errors.ts';
import type { OrgService } from './org.service.ts';
import type { TeamStore } from './team.store.ts';
import type { TeamGrantStore } from './team-grant.store.ts';

/**
 * Teams as rules keep them: by id. A name is read once, when a rule is written, and shown
 * from the team as it is now; a team deleted and made again under its name is another id, so
 * it inherits no rule's place.
 */
export class TeamIds {
  readonly #store: Pick<TeamStore, 'findByName' | 'findByIds'>;
  readonly #grants: Pick<TeamGrantStore, 'isMemberOfAnyTeamId'>;
  readonly #orgs: Pick<OrgService, 'roleOf'>;

  constructor(
    store: Pick<TeamStore, 'findByName' | 'findByIds'>,
    grants: Pick<TeamGrantStore, 'isMemberOfAnyTeamId'>,
    orgs: Pick<OrgService, 'roleOf'>,
  ) {
    this.#store = store;
    this.#grants = grants;
    this.#orgs = orgs;
  }

  /** The ids of the organisation's teams so named (any case); Invalid names the first missing. */
  async idsOf(orgId: string, names: readonly string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const name of names) {
      const team = await this.#store.findByName(orgId, name);
      if (!team) throw new Invalid(`team does not exist [name: ${name}]`);
      if (!ids.includes(team.id)) ids.push(team.id);
    }
    return ids;
  }

  /** The present names of the teams of these ids that still exist, by id. */
  async namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    const teams = await this.#store.findByIds(ids);
    return new Map(teams.map((team) => [team.id, team.name]));
  }

  /**
   * Whether the person belongs to one of these teams of the organisation: a member row, or,
   * for its Owners team, an owner of the organisation (whose membership `org_members` keeps).
   */
  async isMemberOfAny(userId: string, orgId: string, ids: readonly string[]): Promise<boolean> {
    if (ids.length === 0) return false;
    const teams = (await this.#store.findByIds(ids)).filter((team) => team.orgId === orgId);
    if (teams.some((t) => t.permission === 'owner')) {
      if ((await this.#orgs.roleOf(orgId, userId)) === 'owner') return true;
    }
    const others = teams.filter((t) => t.permission !== 'owner').map((t) => t.id);
    return this.#grants.isMemberOfAnyTeamId(userId, others);
  }
}
