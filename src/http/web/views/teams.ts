import type { OrgView } from '../../../domain/orgs/org.service.ts';
import { isOwnersTeam } from '../../../domain/orgs/team.policy.ts';
import type { Team } from '../../../domain/orgs/team.types.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { accountUrl } from '../paths.ts';

/** `/org/{org}/teams`, or one team's page and its forms under it. */
export function teamsUrl(org: string, team?: string): string {
  const base = `/org/${encodeURIComponent(org)}/teams`;
  return team === undefined ? base : `${base}/${encodeURIComponent(team)}`;
}

const LEVELS = { read: 'Read', write: 'Write', admin: 'Admin', owner: 'Owner' } as const;

/** What the team gives, in words: its level and over which repositories. */
export function teamReach(team: Team): string {
  if (isOwnersTeam(team)) return 'Owns the organisation';
  const over = team.includesAllRepositories ? 'all repositories' : 'chosen repositories';
  return `${LEVELS[team.permission]} access to ${over}`;
}

const csrf = (context: PageContext) =>
  html`<input type="hidden" name="_csrf" value="${context.csrf}">`;

/** The fields a team is made or changed with; the Owners team shows only its description. */
export function teamFields(prefix: string, team: Team | undefined): Html {
  const owners = team !== undefined && isOwnersTeam(team);
  const level = team?.permission ?? 'read';
  const option = (value: 'read' | 'write' | 'admin') =>
    html`<option value="${value}" ${level === value ? html`selected` : null}>${LEVELS[value]}</option>`;
  const check = (name: string, label: string, on: boolean) =>
    html`<div class="form-checkbox my-1"><label><input type="checkbox" name="${name}" value="on" ${on ? html`checked` : null}> ${label}</label></div>`;
  return html`${
    owners
      ? null
      : html`<div class="form-group">
        <div class="form-group-header"><label for="${prefix}-name">Name</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="${prefix}-name" name="name" required maxlength="255" pattern="[A-Za-z0-9_.\\-]+" value="${team?.name ?? ''}" autocomplete="off"></div>
      </div>`
  }
    <div class="form-group">
      <div class="form-group-header"><label for="${prefix}-description">Description</label></div>
      <div class="form-group-body"><input class="form-control width-full" id="${prefix}-description" name="description" maxlength="255" value="${team?.description ?? ''}"></div>
    </div>
    ${
      owners
        ? null
        : html`<div class="form-group">
        <div class="form-group-header"><label for="${prefix}-permission">Access</label></div>
        <div class="form-group-body"><select class="form-select" id="${prefix}-permission" name="permission">${option('read')}${option('write')}${option('admin')}</select></div>
      </div>
      ${check('includes_all_repositories', 'Every repository of the organisation, new ones too', team?.includesAllRepositories ?? false)}
      ${check('can_create_org_repo', 'May create repositories', team?.canCreateOrgRepo ?? false)}`
    }`;
}

/** The list of an organisation's teams, and the form that makes one for its owners. */
export function teamList(context: PageContext, view: OrgView, teams: readonly Team[]): Html {
  const rows = teams.map(
    (team) => html`<li class="Box-row d-flex flex-wrap flex-items-center kiln-gap">
      <a class="flex-auto text-bold kiln-break" href="${teamsUrl(view.org.handle, team.name)}">${team.name}</a>
      <span class="color-fg-muted">${teamReach(team)}</span>
    </li>`,
  );
  const create = view.canAdminister
    ? html`<form method="post" action="${teamsUrl(view.org.handle)}" class="Box p-3 mt-3">
        <h2 class="h4 mb-2">New team</h2>
        ${csrf(context)}${teamFields('new-team', undefined)}
        <button class="btn btn-primary mt-2" type="submit">Create team</button>
      </form>`
    : null;
  return html`<ul class="Box list-style-none" aria-label="Teams">${rows}</ul>${create}`;
}

/** One team: what it gives, its members and repositories, and for owners the forms. */
export function teamPage(
  context: PageContext,
  view: OrgView,
  team: Team,
  members: readonly User[],
  repos: readonly { name: string }[],
): Html {
  const org = view.org.handle;
  const base = teamsUrl(org, team.name);
  const owner = view.canAdminister;
  const remove = (path: string, name: string, value: string, label: string) =>
    owner
      ? html`<form method="post" action="${base}/${path}">${csrf(context)}<input type="hidden" name="${name}" value="${value}"><button class="btn btn-sm btn-danger" type="submit" aria-label="${label}">Remove</button></form>`
      : null;
  const add = (path: string, name: string, label: string, button: string) =>
    owner
      ? html`<form method="post" action="${base}/${path}" class="Box-row d-flex flex-items-end kiln-gap">
          ${csrf(context)}
          <div class="form-group my-0 flex-auto">
            <div class="form-group-header"><label for="team-${path}">${label}</label></div>
            <div class="form-group-body"><input class="form-control width-full" id="team-${path}" name="${name}" required maxlength="100" autocomplete="off"></div>
          </div>
          <button class="btn" type="submit">${button}</button>
        </form>`
      : null;
  const memberRows = members.map(
    (member) => html`<li class="Box-row d-flex flex-items-center kiln-gap">
      <img class="avatar" src="/assets/avatar.svg" width="20" height="20" alt="">
      <a class="flex-auto kiln-break" href="${accountUrl(member.handle)}">${member.handle}</a>
      ${remove('members/remove', 'username', member.handle, `Remove ${member.handle}`)}
    </li>`,
  );
  const repoRows = team.includesAllRepositories
    ? html`<li class="Box-row color-fg-muted">Every repository of ${org}.</li>`
    : repos.map(
        (repo) => html`<li class="Box-row d-flex flex-items-center kiln-gap">
          <a class="flex-auto kiln-break" href="/repos/${encodeURIComponent(org)}/${encodeURIComponent(repo.name)}">${org}/${repo.name}</a>
          ${remove('repos/remove', 'repo', repo.name, `Remove ${repo.name}`)}
        </li>`,
      );
  const settings = owner
    ? html`<form method="post" action="${base}/edit" class="Box p-3 mt-3" id="team-settings">
        <h2 class="h4 mb-2">Settings</h2>
        ${csrf(context)}${teamFields('team', team)}
        <button class="btn btn-primary mt-2" type="submit">Save team</button>
      </form>
      ${
        isOwnersTeam(team)
          ? null
          : html`<form method="post" action="${base}/delete" class="Box color-border-danger p-3 mt-3">
        ${csrf(context)}
        <button class="btn btn-danger" type="submit">Delete team ${team.name}</button>
      </form>`
      }`
    : null;
  return html`<h2 class="h3 mb-1 kiln-break">${team.name}</h2>
    <p class="color-fg-muted mb-3">${teamReach(team)}${team.description ? html` · ${team.description}` : null}</p>
    <div class="Box mb-3"><div class="Box-header"><h3 class="Box-title">Members</h3></div>
      <ul class="list-style-none" aria-label="Team members">${memberRows}</ul>
      ${add('members', 'username', 'Username', 'Add member')}
    </div>
    <div class="Box"><div class="Box-header"><h3 class="Box-title">Repositories</h3></div>
      <ul class="list-style-none" aria-label="Team repositories">${repoRows}</ul>
      ${team.includesAllRepositories ? null : add('repos', 'repo', 'Repository name', 'Add repository')}
    </div>
    ${settings}`;
}
