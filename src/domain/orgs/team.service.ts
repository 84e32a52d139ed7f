import { Forbidden, Invalid, NotFound } from '../errors.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { Account, User } from '../users/user.types.ts';
import type { OrgService, OrgView } from './org.service.ts';
import { checkedTeamDescription, checkedTeamName, isOwnersTeam } from './team.policy.ts';
import type { TeamStore } from './team.store.ts';
import { OWNERS_TEAM_NAME, type Team, type TeamInput } from './team.types.ts';
import type { TeamGrantStore } from './team-grant.store.ts';
import type { TeamMembership } from './team-membership.ts';

export type TeamServiceDeps = {
  readonly store: TeamStore;
  readonly grants: Pick<TeamGrantStore, 'isMemberOfAnyNamed'>;
  readonly orgs: Pick<
    OrgService,
    'viewOf' | 'view' | 'addMember' | 'setRole' | 'listMembers' | 'roleOf'
  >;
  /** The accounts teams name, handed in by the composition root. */
  readonly users: {
    findByHandle(handle: string): Promise<Account | undefined>;
    findById(id: string): Promise<Account | undefined>;
    findManyByIds(ids: readonly string[]): Promise<Map<string, Account>>;
  };
  /** The repositories teams are given, looked up by owner and name. */
  readonly repos: {
    findByName(ownerHandle: string, name: string): Promise<Repository | undefined>;
  };
};

/** A team as one viewer sees it, with its organisation and the viewer's place there. */
export type TeamView = { readonly team: Team; readonly org: OrgView };

const missing = (id: number | string) => new NotFound(`team does not exist [id: ${id}]`);

/**
 * Teams of organisations. Members of an organisation (and the instance's administrators) see
 * its teams; its owners change them. The Owners team is the organisation's owners: adding to
 * it makes an owner, removing from it makes a plain member (never the last owner), and it is
 * neither renamed nor deleted. Every other team's members are members of the organisation
 * (TeamStore.addMember, OrgStore.changeMember keep that so). What a team gives over
 * repositories is read by the access rule (repo.policy.ts), not here.
 */
export class TeamService implements TeamMembership {
  readonly #deps: TeamServiceDeps;
  // The changes take the acting person's own view of the team (`get`, `byName`): whether they
  // may change it is that view's `canAdminister`, decided once by OrgService.

  constructor(deps: TeamServiceDeps) {
    this.#deps = deps;
  }

  /** The organisation's teams; only for its members and administrators. */
  async list(viewer: User, orgName: string): Promise<{ org: OrgView; teams: Team[] }> {
    const org = this.#memberView(await this.#deps.orgs.view(viewer, orgName));
    return { org, teams: await this.#deps.store.listByOrg(org.org.id) };
  }

  async create(actor: User, orgName: string, input: TeamInput): Promise<TeamView> {
    const org = await this.#deps.orgs.view(actor, orgName);
    this.#mayChange(org);
    const team = await this.#deps.store.insert(org.org.id, checkedInput(input));
    return { team, org };
  }

  /** The team by its wire id, for a member of its organisation or an administrator. */
  async get(viewer: User, wireId: number): Promise<TeamView> {
    const team = await this.#deps.store.findByWireId(wireId);
    if (!team) throw missing(wireId);
    const org = await this.#deps.users.findById(team.orgId);
    if (!org) throw missing(wireId);
    return { team, org: this.#memberView(await this.#deps.orgs.viewOf(viewer, org)) };
  }

  /** The team by its organisation's and its own name, as pages address it. */
  async byName(viewer: User, orgName: string, teamName: string): Promise<TeamView> {
    const org = this.#memberView(await this.#deps.orgs.view(viewer, orgName));
    const team = await this.#deps.store.findByName(org.org.id, teamName);
    if (!team) throw missing(teamName);
    return { team, org };
  }

  /** Changes a team; of the Owners team only the description changes (as in Gitea). */
  async edit(view: TeamView, input: TeamInput): Promise<TeamView> {
    this.#mayChange(view.org);
    const { team } = view;
    if (isOwnersTeam(team)) {
      const description = checkedTeamDescription(input.description);
      await this.#deps.store.updateDescription(team.id, description);
      return { ...view, team: { ...team, description } };
    }
    const checked = checkedInput(input);
    await this.#deps.store.update(team.id, checked);
    return { ...view, team: { ...team, ...checked } };
  }

  async delete(view: TeamView): Promise<void> {
    this.#mayChange(view.org);
    if (isOwnersTeam(view.team))
      throw new Invalid(`the ${OWNERS_TEAM_NAME} team cannot be deleted`);
    await this.#deps.store.delete(view.team.id);
  }

  /** The team's members: for the Owners team, the organisation's owners. */
  async members(view: TeamView): Promise<User[]> {
    const ids = isOwnersTeam(view.team)
      ? (await this.#deps.orgs.listMembers(view.org.org))
          .filter((member) => member.role === 'owner')
          .map((member) => member.userId)
      : await this.#deps.store.listMemberIds(view.team.id);
    const accounts = await this.#deps.users.findManyByIds(ids);
    return ids.flatMap((id) => {
      const account = accounts.get(id);
      return account?.kind === 'user' ? [account as User] : [];
    });
  }

  /** Whether the person is one of the team's members. */
  async hasMember(view: TeamView, person: User): Promise<boolean> {
    if (isOwnersTeam(view.team)) {
      return (await this.#deps.orgs.roleOf(view.org.org.id, person.id)) === 'owner';
    }
    return this.#deps.store.isMember(view.team.id, person.id);
  }

  /** Adds a person by handle; to the Owners team, that makes them an owner. */
  async addMember(view: TeamView, handle: string): Promise<User> {
    this.#mayChange(view.org);
    const person = await this.#person(handle);
    if (isOwnersTeam(view.team)) await this.#deps.orgs.addMember(view.org.org, person, 'owner');
    else await this.#deps.store.addMember(view.team, person.id);
    return person;
  }

  /**
   * Removes a person; from the Owners team that leaves them a plain member of the organisation,
   * and the last owner stays (Conflict). Someone not in the team is NotFound.
   */
  async removeMember(actor: User, view: TeamView, handle: string): Promise<User> {
    this.#mayChange(view.org);
    const person = await this.#person(handle);
    if (!(await this.hasMember(view, person))) {
      throw new NotFound(`${person.handle} is not a member of ${view.team.name}`);
    }
    if (isOwnersTeam(view.team)) {
      await this.#deps.orgs.setRole(actor, view.org.org.handle, person.handle, 'member');
    } else {
      await this.#deps.store.removeMember(view.team.id, person.id);
    }
    return person;
  }

  /** The repositories listed for the team (a team over all repositories lists none). */
  async repos(view: TeamView): Promise<Array<{ id: string; name: string }>> {
    return this.#deps.store.listRepos(view.team.id);
  }

  /** Lists a repository of the team's organisation for the team. */
  async addRepo(view: TeamView, owner: string, name: string): Promise<void> {
    this.#mayChange(view.org);
    const repo = await this.#orgRepo(view, owner, name);
    await this.#deps.store.addRepo(view.team.id, repo);
  }

  async removeRepo(view: TeamView, owner: string, name: string): Promise<void> {
    this.#mayChange(view.org);
    const repo = await this.#orgRepo(view, owner, name);
    await this.#deps.store.removeRepo(view.team.id, repo);
  }

  /** The teams the person belongs to, in every organisation, each with its organisation. */
  async teamsOf(person: User): Promise<TeamView[]> {
    const teams = await this.#deps.store.listOfUser(person.id);
    const accounts = await this.#deps.users.findManyByIds([
      ...new Set(teams.map((team) => team.orgId)),
    ]);
    const views = new Map<string, OrgView>();
    for (const account of accounts.values()) {
      views.set(account.id, await this.#deps.orgs.viewOf(person, account));
    }
    return teams.flatMap((team) => {
      const org = views.get(team.orgId);
      return org ? [{ team, org }] : [];
    });
  }

  async isMemberOfAnyTeam(
    userId: string,
    orgId: string,
    teamNames: readonly string[],
  ): Promise<boolean> {
    const owners = OWNERS_TEAM_NAME.toLowerCase();
    const names = teamNames.map((name) => name.toLowerCase());
    if (names.includes(owners) && (await this.#deps.orgs.roleOf(orgId, userId)) === 'owner') {
      return true;
    }
    return this.#deps.grants.isMemberOfAnyNamed(
      userId,
      orgId,
      names.filter((name) => name !== owners),
    );
  }

  /** The organisation's view when the viewer belongs to it or administers the instance. */
  #memberView(org: OrgView): OrgView {
    if (org.role === undefined && !org.canAdminister) {
      throw new Forbidden('you must be a member of the organisation');
    }
    return org;
  }

  #mayChange(org: OrgView): void {
    if (!org.canAdminister) throw new Forbidden('only owners of the organisation may do that');
  }

  async #person(handle: string): Promise<User> {
    const account = await this.#deps.users.findByHandle(handle.trim());
    if (account?.kind !== 'user') throw new NotFound(`user does not exist [name: ${handle}]`);
    return account as User;
  }

  async #orgRepo(view: TeamView, owner: string, name: string): Promise<string> {
    const repo = await this.#deps.repos.findByName(owner, name);
    if (!repo || repo.owner.id !== view.org.org.id) {
      throw new NotFound(`repository does not exist [owner: ${owner}, name: ${name}]`);
    }
    return repo.id;
  }
}

function checkedInput(input: TeamInput): TeamInput {
  return {
    ...input,
    name: checkedTeamName(input.name),
    description: checkedTeamDescription(input.description),
  };
}
