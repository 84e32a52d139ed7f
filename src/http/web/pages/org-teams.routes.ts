import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseTeamPermission } from '../../../domain/orgs/team.policy.ts';
import type { TeamService, TeamView } from '../../../domain/orgs/team.service.ts';
import type { TeamInput } from '../../../domain/orgs/team.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { Type } from '../../../present/schemas/type.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import type { Pages } from '../page.ts';
import { OrgParams, type PageRequest } from '../page-params.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';
import { orgFrame } from '../views/org-frame.ts';
import { teamList, teamPage, teamsUrl } from '../views/teams.ts';

/** What an organisation's team pages use. */
export type OrgTeamsRouteDeps = {
  readonly services: Pick<DomainServices, 'teams'>;
};

const TeamParams = Type.Object({ org: Type.String(), team: Type.String({ maxLength: 300 }) });
type TeamParams = { org: string; team: string };

/** A team's fields from its form; a checkbox left unticked is not sent at all. */
function teamInput(body: unknown): TeamInput {
  return {
    name: field(body, 'name', 300),
    description: field(body, 'description', 1000),
    permission: parseTeamPermission(field(body, 'permission', 20) || 'read'),
    includesAllRepositories: field(body, 'includes_all_repositories', 10) === 'on',
    canCreateOrgRepo: field(body, 'can_create_org_repo', 10) === 'on',
  };
}

/**
 * `/org/{org}/teams` and `/org/{org}/teams/{team}`: an organisation's teams for its members
 * (to anyone else as missing as its members page), and for its owners the forms that create,
 * change and delete teams and add and remove their members and repositories. Every form goes
 * through TeamService, which keeps the Owners team and the last owner.
 */
export function registerOrgTeamsRoutes(
  parent: FastifyInstance,
  deps: OrgTeamsRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const teams: TeamService = deps.services.teams;
  const orgParams = { schema: { params: OrgParams } };
  const teamParams = { schema: { params: TeamParams } };

  server.get('/org/:org/teams', orgParams, async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    const { org, teams: found } = await teams.list(user, request.params.org);
    reply.header('Cache-Control', 'no-store');
    return pages.send(request, reply, {
      title: `Teams · ${org.org.handle}`,
      body: (context) => orgFrame(org, 'teams', teamList(context, org, found)),
    });
  });

  server.post('/org/:org/teams', orgParams, async (request, reply) => {
    const user = signedInPoster(request, reply);
    if (!user) return reply;
    const back = teamsUrl(request.params.org);
    return formAction(
      pages,
      request,
      reply,
      async () => {
        const { team, org } = await teams.create(user, request.params.org, teamInput(request.body));
        return { to: teamsUrl(org.org.handle, team.name), flash: `Team ${team.name} created.` };
      },
      { answers: ['invalid', 'conflict'], back },
    );
  });

  server.get('/org/:org/teams/:team', teamParams, async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    const view = await teams.byName(user, request.params.org, request.params.team);
    const [members, repos] = await Promise.all([teams.members(view), teams.repos(view)]);
    reply.header('Cache-Control', 'no-store');
    return pages.send(request, reply, {
      title: `${view.team.name} · ${view.org.org.handle}`,
      body: (context) =>
        orgFrame(view.org, 'teams', teamPage(context, view.org, view.team, members, repos)),
    });
  });

  /** A team's form: signed in with the CSRF token, the team as the poster sees it, then the change. */
  const action = (
    path: string,
    change: (view: TeamView, body: unknown, user: User) => Promise<{ to?: string; flash: string }>,
  ) =>
    server.post(
      `/org/:org/teams/:team/${path}`,
      teamParams,
      async (request: PageRequest<TeamParams>, reply: FastifyReply) => {
        const user = signedInPoster(request, reply);
        if (!user) return reply;
        const view = await teams.byName(user, request.params.org, request.params.team);
        const back = teamsUrl(view.org.org.handle, view.team.name);
        return formAction(
          pages,
          request,
          reply,
          async () => {
            const done = await change(view, request.body, user);
            return { to: done.to ?? back, flash: done.flash };
          },
          { answers: ['invalid', 'conflict', 'not_found'], back },
        );
      },
    );

  action('edit', async (view, body) => {
    const { team, org } = await teams.edit(view, teamInput(body));
    return { to: teamsUrl(org.org.handle, team.name), flash: `Team ${team.name} saved.` };
  });
  action('delete', async (view) => {
    await teams.delete(view);
    return { to: teamsUrl(view.org.org.handle), flash: `Team ${view.team.name} deleted.` };
  });
  action('members', async (view, body) => {
    const person = await teams.addMember(view, field(body, 'username', 100));
    return { flash: `${person.handle} is now in ${view.team.name}.` };
  });
  action('members/remove', async (view, body, user) => {
    const person = await teams.removeMember(user, view, field(body, 'username', 100));
    return { flash: `${person.handle} left ${view.team.name}.` };
  });
  action('repos', async (view, body) => {
    const name = field(body, 'repo', 200).trim();
    await teams.addRepo(view, view.org.org.handle, name);
    return { flash: `${name} was added to ${view.team.name}.` };
  });
  action('repos/remove', async (view, body) => {
    const name = field(body, 'repo', 200);
    await teams.removeRepo(view, view.org.org.handle, name);
    return { flash: `${name} was removed from ${view.team.name}.` };
  });
}
