import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseTeamPermission } from '../../../domain/orgs/team.policy.ts';
import type { TeamView } from '../../../domain/orgs/team.service.ts';
import type { Team, TeamInput } from '../../../domain/orgs/team.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  ApiTeamSchema,
  type CreateTeamOption,
  CreateTeamOptionSchema,
  EditTeamOptionSchema,
} from '../../../present/schemas/team.ts';
import { Type } from '../../../present/schemas/type.ts';
import { ApiUserSchema } from '../../../present/schemas/user.ts';
import { toApiTeam } from '../../../present/team.ts';
import { toApiUser } from '../../../present/user.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, pageOfList } from './paging.ts';

/** What the routes use: teams, and the configuration for base URLs. */
export type TeamRouteDeps = {
  readonly services: Pick<DomainServices, 'teams'>;
  readonly config: BaseUrlConfig;
};

const tags = ['organization'];
const TeamId = { id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) };
const TeamParams = Type.Object(TeamId);
const MemberParams = Type.Object({ ...TeamId, username: Type.String({ maxLength: 200 }) });
const RepoParams = Type.Object({
  ...TeamId,
  org: Type.String({ maxLength: 200 }),
  repo: Type.String({ maxLength: 200 }),
});
const OrgParams = Type.Object({ org: Type.String({ maxLength: 200 }) });
const noContent = { 204: Type.Null(), ...errorResponses };

/** A team's fields from a body; what it leaves out keeps `current`'s value (or the default). */
function teamInput(body: Partial<CreateTeamOption> & { name: string }, current?: Team): TeamInput {
  return {
    name: body.name,
    description: body.description ?? current?.description ?? '',
    permission: parseTeamPermission(
      body.permission ??
        (current?.permission === 'owner' ? 'admin' : current?.permission) ??
        'read',
    ),
    includesAllRepositories:
      body.includes_all_repositories ?? current?.includesAllRepositories ?? false,
    canCreateOrgRepo: body.can_create_org_repo ?? current?.canCreateOrgRepo ?? false,
  };
}

/**
 * Teams, Gitea-compatible: an organisation's teams, one team by id, its members and its
 * repositories, and the caller's own teams. Members of the organisation see its teams; its
 * owners change them (TeamService); a team of an organisation hidden from the caller is 404.
 */
export function registerTeamRoutes(parent: FastifyInstance, deps: TeamRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { teams } = deps.services;
  const wire = (request: FastifyRequest, view: TeamView) =>
    toApiTeam(view.team, view.org.org, view.org.settings, {
      baseUrl: baseUrlOf(request, deps.config),
    });

  server.get(
    '/orgs/:org/teams',
    {
      schema: {
        summary: "List an organisation's teams",
        tags,
        params: OrgParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiTeamSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { org, teams: found } = await teams.list(requireUser(request), request.params.org);
      const all = found.map((team) => wire(request, { team, org }));
      return pageOfList(request, reply, baseUrlOf(request, deps.config), all);
    },
  );

  server.post(
    '/orgs/:org/teams',
    {
      schema: {
        summary: 'Create a team',
        tags,
        params: OrgParams,
        body: CreateTeamOptionSchema,
        response: { 201: ApiTeamSchema, ...errorResponses, 409: errorResponses[404] },
      },
    },
    async (request, reply) => {
      const actor = requireUser(request);
      const view = await teams.create(actor, request.params.org, teamInput(request.body));
      return reply.status(201).send(wire(request, view));
    },
  );

  server.get(
    '/teams/:id',
    {
      schema: {
        summary: 'Get a team',
        tags,
        params: TeamParams,
        response: { 200: ApiTeamSchema, ...errorResponses },
      },
    },
    async (request) => wire(request, await teams.get(requireUser(request), request.params.id)),
  );

  server.patch(
    '/teams/:id',
    {
      schema: {
        summary: 'Edit a team',
        tags,
        params: TeamParams,
        body: EditTeamOptionSchema,
        response: { 200: ApiTeamSchema, ...errorResponses, 409: errorResponses[404] },
      },
    },
    async (request) => {
      const actor = requireUser(request);
      const view = await teams.get(actor, request.params.id);
      const edited = await teams.edit(view, teamInput(request.body, view.team));
      return wire(request, edited);
    },
  );

  server.delete(
    '/teams/:id',
    { schema: { summary: 'Delete a team', tags, params: TeamParams, response: noContent } },
    async (request, reply) => {
      const actor = requireUser(request);
      await teams.delete(await teams.get(actor, request.params.id));
      return reply.status(204).send(null);
    },
  );

  server.get(
    '/teams/:id/members',
    {
      schema: {
        summary: "List a team's members",
        tags,
        params: TeamParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiUserSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const view = await teams.get(requireUser(request), request.params.id);
      const baseUrl = baseUrlOf(request, deps.config);
      const members = (await teams.members(view)).map((user) => toApiUser(user, { baseUrl }));
      return pageOfList(request, reply, baseUrl, members);
    },
  );

  server.put(
    '/teams/:id/members/:username',
    { schema: { summary: 'Add a team member', tags, params: MemberParams, response: noContent } },
    async (request, reply) => {
      const actor = requireUser(request);
      const view = await teams.get(actor, request.params.id);
      await teams.addMember(view, request.params.username);
      return reply.status(204).send(null);
    },
  );

  server.delete(
    '/teams/:id/members/:username',
    {
      schema: {
        summary: 'Remove a team member',
        tags,
        params: MemberParams,
        response: { ...noContent, 409: errorResponses[404] },
      },
    },
    async (request, reply) => {
      const actor = requireUser(request);
      const view = await teams.get(actor, request.params.id);
      await teams.removeMember(actor, view, request.params.username);
      return reply.status(204).send(null);
    },
  );

  for (const [method, change] of [
    ['put', teams.addRepo.bind(teams)],
    ['delete', teams.removeRepo.bind(teams)],
  ] as const) {
    server[method](
      '/teams/:id/repos/:org/:repo',
      {
        schema: {
          summary:
            method === 'put' ? 'Add a repository to a team' : 'Remove a repository from a team',
          tags,
          params: RepoParams,
          response: noContent,
        },
      },
      async (request, reply) => {
        const actor = requireUser(request);
        const view = await teams.get(actor, request.params.id);
        await change(view, request.params.org, request.params.repo);
        return reply.status(204).send(null);
      },
    );
  }

  server.get(
    '/user/teams',
    {
      schema: {
        summary: "List the caller's teams",
        tags: ['user'],
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiTeamSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const views = await teams.teamsOf(requireUser(request));
      const all = views.map((view) => wire(request, view));
      return pageOfList(request, reply, baseUrlOf(request, deps.config), all);
    },
  );
}
