import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RepoCiAccess } from '../../../domain/ci/ci-names.ts';
import { Unauthenticated } from '../../../domain/errors.ts';
import { mayAdministerRepo } from '../../../domain/repos/repo.policy.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { toApiRepoVariable, toApiSecret } from '../../../present/action-setting.ts';
import {
  ApiActionVariableSchema,
  ApiSecretSchema,
  SecretOptionSchema,
  VariableOptionSchema,
} from '../../../present/schemas/action-setting.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, pageOfList } from './paging.ts';
import { RepoParams, repoParamsWith } from './params.ts';

export type RepoActionSettingsRouteDeps = {
  readonly services: Pick<DomainServices, 'ciSecrets' | 'ciVariables' | 'repos'>;
  readonly config: BaseUrlConfig;
};

const SecretParams = repoParamsWith({ secretname: Type.String({ maxLength: 255 }) });
const VariableParams = repoParamsWith({ variablename: Type.String({ maxLength: 255 }) });
const tags = ['repository'];
const noBody = Type.Null();

/**
 * A repository's CI secrets and variables as Gitea 1.22 serves them under
 * `/repos/{owner}/{repo}/actions/secrets` and `…/actions/variables`, over the same services and
 * name rules as the repository's CI settings page. Only its admins manage them: one who may not
 * see the repository gets 404, an anonymous caller 401, anyone else 403.
 */
export function registerRepoActionSettingsRoutes(
  parent: FastifyInstance,
  deps: RepoActionSettingsRouteDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { ciSecrets, ciVariables, repos } = deps.services;

  /** The caller's say over the repository's settings; the services refuse non-admins. */
  const accessOf = async (
    request: Pick<FastifyRequest, 'viewer'> & { params: { owner: string; name: string } },
  ) => {
    const user = viewerUser(request.viewer);
    const { repo, access } = await repos.get(user, request.params.owner, request.params.name);
    if (!user) throw new Unauthenticated('token is required');
    return { repoId: repo.id, isRepoAdmin: mayAdministerRepo(access) } satisfies RepoCiAccess;
  };
  /** One page of a list (they are short), with Gitea's paging headers. */
  const page = <T>(request: FastifyRequest, reply: FastifyReply, all: readonly T[]) =>
    pageOfList(request, reply, baseUrlOf(request, deps.config), all);
  const secrets = '/repos/:owner/:name/actions/secrets';
  const variables = '/repos/:owner/:name/actions/variables';

  server.get(
    secrets,
    {
      schema: {
        tags,
        summary: "List a repository's CI secrets (names only)",
        params: RepoParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiSecretSchema), ...errorResponses },
      },
    },
    async (request, reply) =>
      page(request, reply, await ciSecrets.list(await accessOf(request))).map(toApiSecret),
  );
  server.put(
    `${secrets}/:secretname`,
    {
      schema: {
        tags,
        summary: 'Create (201) or replace (204) a repository CI secret',
        params: SecretParams,
        body: SecretOptionSchema,
        response: { 201: noBody, 204: noBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { params, body } = request;
      const saved = await ciSecrets.put(await accessOf(request), params.secretname, body.data);
      return reply.code(saved.created ? 201 : 204).send(null);
    },
  );
  server.delete(
    `${secrets}/:secretname`,
    {
      schema: {
        tags,
        summary: 'Delete a repository CI secret',
        params: SecretParams,
        response: { 204: noBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      await ciSecrets.delete(await accessOf(request), request.params.secretname);
      return reply.code(204).send(null);
    },
  );

  server.get(
    variables,
    {
      schema: {
        tags,
        summary: "List a repository's CI variables",
        params: RepoParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiActionVariableSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const access = await accessOf(request);
      const listed = page(request, reply, await ciVariables.list(access));
      return listed.map((row) => toApiRepoVariable({ ...row, repoId: access.repoId }));
    },
  );
  server.get(
    `${variables}/:variablename`,
    {
      schema: {
        tags,
        summary: 'Get a repository CI variable',
        params: VariableParams,
        response: { 200: ApiActionVariableSchema, ...errorResponses },
      },
    },
    async (request) => {
      const access = await accessOf(request);
      const found = await ciVariables.get(access, request.params.variablename);
      return toApiRepoVariable({ ...found, repoId: access.repoId });
    },
  );
  server.post(
    `${variables}/:variablename`,
    {
      schema: {
        tags,
        summary: 'Create a repository CI variable (409 when the name is taken)',
        params: VariableParams,
        body: VariableOptionSchema,
        response: { 201: noBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { params, body } = request;
      await ciVariables.create(await accessOf(request), params.variablename, body.value);
      return reply.code(201).send(null);
    },
  );
  server.put(
    `${variables}/:variablename`,
    {
      schema: {
        tags,
        summary: 'Change a repository CI variable, renaming it when `name` is given',
        params: VariableParams,
        body: VariableOptionSchema,
        response: { 204: noBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { params, body } = request;
      await ciVariables.update(await accessOf(request), params.variablename, {
        value: body.value,
        ...(body.name ? { rename: body.name } : {}),
      });
      return reply.code(204).send(null);
    },
  );
  server.delete(
    `${variables}/:variablename`,
    {
      schema: {
        tags,
        summary: 'Delete a repository CI variable',
        params: VariableParams,
        response: { 204: noBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      await ciVariables.delete(await accessOf(request), request.params.variablename);
      return reply.code(204).send(null);
    },
  );
}
