import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { TeamView } from '../../../domain/orgs/team.service.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import type { ConvertContext } from '../../../present/context.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { ApiRepositorySchema } from '../../../present/schemas/repo.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';
import type { RepoAnswers } from './repo-answers.ts';
import { repositorySerializer, sendSerialized } from './repos.routes.ts';

/** What the routes use: teams and repositories, and how Repository objects are written. */
export type TeamRepoRouteDeps = {
  readonly services: Pick<DomainServices, 'teams' | 'repos'>;
  readonly config: BaseUrlConfig & { readonly ssh: ConvertContext['ssh'] };
  readonly answers: RepoAnswers;
};

const tags = ['organization'];
const TeamId = { id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) };
const OneRepoParams = Type.Object({
  ...TeamId,
  org: Type.String({ maxLength: 200 }),
  repo: Type.String({ maxLength: 200 }),
});

/**
 * Gitea's reading of a team's repositories: `GET /teams/{id}/repos` (every repository of the
 * organisation for a team over all of them, else the ones listed) and
 * `GET /teams/{id}/repos/{org}/{repo}` (404 unless the team covers it). Only what the caller
 * may see is listed; the team itself is its organisation members' to read.
 */
export function registerTeamRepoRoutes(parent: FastifyInstance, deps: TeamRepoRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { teams, repos } = deps.services;
  const context = (request: FastifyRequest): ConvertContext => ({
    baseUrl: baseUrlOf(request, deps.config),
    ssh: deps.config.ssh,
  });
  const covers = async (view: TeamView, repo: Repository) => {
    if (repo.owner.id !== view.team.orgId) return false;
    if (view.team.includesAllRepositories) return true;
    return (await teams.repos(view)).some((listed) => listed.id === repo.id);
  };
  const listed = async (viewer: User, view: TeamView) => {
    const found = await Promise.all(
      (await teams.repos(view)).map((listedRepo) => repos.findById(listedRepo.id)),
    );
    const all = found.filter((repo): repo is Repository => repo !== undefined);
    return repos.accessOfMany(viewer, all);
  };

  server.get(
    '/teams/:id/repos',
    {
      schema: {
        summary: "List a team's repositories",
        tags,
        params: Type.Object(TeamId),
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiRepositorySchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const viewer = requireUser(request);
      const view = await teams.get(viewer, request.params.id);
      const paging = readPaging(request.query);
      const { items, total } = view.team.includesAllRepositories
        ? await repos.listByOwner(viewer, view.org.org.handle, paging, 'org')
        : await listed(viewer, view).then((all) => ({
            items: all.slice(paging.offset, paging.offset + paging.limit),
            total: all.length,
          }));
      setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, total);
      const text = await deps.answers.serializedList(
        viewer,
        items,
        context(request),
        repositorySerializer(reply),
      );
      return sendSerialized(reply, text);
    },
  );

  server.get(
    '/teams/:id/repos/:org/:repo',
    {
      schema: {
        summary: 'A repository of a team',
        tags,
        params: OneRepoParams,
        response: { 200: ApiRepositorySchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const viewer = requireUser(request);
      const view = await teams.get(viewer, request.params.id);
      const visible = await repos.get(viewer, request.params.org, request.params.repo);
      if (!(await covers(view, visible.repo))) {
        throw new NotFound(`repository does not belong to the team [id: ${request.params.id}]`);
      }
      const text = await deps.answers.serialized(
        viewer,
        visible,
        context(request),
        repositorySerializer(reply),
      );
      return sendSerialized(reply, text);
    },
  );
}
