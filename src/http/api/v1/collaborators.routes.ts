import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { parseCollaboratorPermission } from '../../../domain/repos/collaborator.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  AddCollaboratorOptionSchema,
  RepoCollaboratorPermissionSchema,
} from '../../../present/schemas/repo.ts';
import { Type } from '../../../present/schemas/type.ts';
import { ApiUserSchema } from '../../../present/schemas/user.ts';
import { toApiUser } from '../../../present/user.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';
import { RepoParams, repoParamsWith } from './params.ts';

const Params = repoParamsWith({
  collaborator: Type.String({ maxLength: 100 }),
});
const tags = ['repository'];
const noContent = { 204: Type.Null(), ...errorResponses };

/** What the routes use: the collaborators of repositories, and the configuration for base URLs. */
export type CollaboratorRouteDeps = {
  readonly services: Pick<DomainServices, 'collaborators'>;
  readonly config: BaseUrlConfig;
};

/** Collaborators, Gitea-compatible: list, check, add with a permission, remove, effective permission. */
export function registerCollaboratorRoutes(
  parent: FastifyInstance,
  deps: CollaboratorRouteDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { collaborators } = deps.services;

  server.get(
    '/repos/:owner/:name/collaborators',
    {
      schema: {
        summary: "A repository's collaborators",
        tags,
        params: RepoParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiUserSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const all = await collaborators.list(
        viewerUser(request.viewer),
        request.params.owner,
        request.params.name,
      );
      const paging = readPaging(request.query);
      const baseUrl = baseUrlOf(request, deps.config);
      setPagingHeaders(request, reply, baseUrl, paging, all.length);
      return all
        .slice(paging.offset, paging.offset + paging.limit)
        .map(({ user }) => toApiUser(user, { baseUrl }));
    },
  );

  server.get(
    '/repos/:owner/:name/collaborators/:collaborator',
    {
      schema: {
        summary: 'Is this user a collaborator? 204 yes, 404 no',
        tags,
        params: Params,
        response: noContent,
      },
    },
    async (request, reply) => {
      const { owner, name, collaborator } = request.params;
      await collaborators.check(viewerUser(request.viewer), owner, name, collaborator);
      return reply.status(204).send(null);
    },
  );

  server.put(
    '/repos/:owner/:name/collaborators/:collaborator',
    {
      schema: {
        summary: 'Add a collaborator (permission read, write or admin; default write)',
        tags,
        params: Params,
        body: Type.Union([AddCollaboratorOptionSchema, Type.Null()]),
        response: noContent,
      },
    },
    async (request, reply) => {
      const { owner, name, collaborator } = request.params;
      const permission = parseCollaboratorPermission(request.body?.permission);
      await collaborators.put(requireUser(request), owner, name, collaborator, permission);
      return reply.status(204).send(null);
    },
  );

  server.delete(
    '/repos/:owner/:name/collaborators/:collaborator',
    { schema: { summary: 'Remove a collaborator', tags, params: Params, response: noContent } },
    async (request, reply) => {
      const { owner, name, collaborator } = request.params;
      await collaborators.remove(requireUser(request), owner, name, collaborator);
      return reply.status(204).send(null);
    },
  );

  server.get(
    '/repos/:owner/:name/collaborators/:collaborator/permission',
    {
      schema: {
        summary: "A user's effective permission on a repository",
        tags,
        params: Params,
        response: { 200: RepoCollaboratorPermissionSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name, collaborator } = request.params;
      const result = await collaborators.permissionOf(
        viewerUser(request.viewer),
        owner,
        name,
        collaborator,
      );
      const permission = result.isOwner ? 'owner' : result.level;
      return {
        permission,
        role_name: permission,
        user: toApiUser(result.user, { baseUrl: baseUrlOf(request, deps.config) }),
      };
    },
  );
}
