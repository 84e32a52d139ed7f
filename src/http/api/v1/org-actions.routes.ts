import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CiSettingKind as OrgSettingKind } from '../../../domain/ci/ci-names.ts';
import type { OrgSettingInfo } from '../../../domain/ci/ci-org-settings.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { toApiOrgVariable, toApiSecret } from '../../../present/action-setting.ts';
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

export type OrgActionRouteDeps = {
  readonly services: Pick<DomainServices, 'ciOrgSettings'>;
  readonly config: BaseUrlConfig;
};

const OrgParams = Type.Object({ org: Type.String({ maxLength: 200 }) });

const SecretParams = Type.Object({
  org: Type.String({ maxLength: 200 }),
  secretname: Type.String({ maxLength: 255 }),
});
const VariableParams = Type.Object({
  org: Type.String({ maxLength: 200 }),
  variablename: Type.String({ maxLength: 255 }),
});
const tags = ['organization'];

/**
 * Organisation CI secrets and variables as Gitea 1.22 serves them under
 * `/orgs/{org}/actions/secrets` and `/orgs/{org}/actions/variables`: owners only, 404 to anyone
 * outside the organisation, 403 to its other members (see `CiOrgSettingsService.owned`).
 */
export function registerOrgActionRoutes(parent: FastifyInstance, deps: OrgActionRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const settings = deps.services.ciOrgSettings;
  const owned = (request: Pick<FastifyRequest, 'viewer'> & { params: { org: string } }) =>
    settings.owned(viewerUser(request.viewer), request.params.org);
  /** One page of a list (they are short), with Gitea's paging headers. */
  const page = <T>(request: FastifyRequest, reply: FastifyReply, all: readonly T[]) =>
    pageOfList(request, reply, baseUrlOf(request, deps.config), all);

  /**
   * Gitea answers both deletions alike: 204, or 404 when there is no setting of that name. The
   * name's parameter is Gitea's (`secretname`, `variablename`).
   */
  const deletion = (kind: OrgSettingKind, params: typeof SecretParams | typeof VariableParams) =>
    server.delete(
      `/orgs/:org/actions/${kind}s/:${kind}name`,
      {
        schema: {
          tags,
          summary: `Delete an organisation CI ${kind}`,
          params,
          response: { 204: Type.Null(), ...errorResponses },
        },
      },
      async (request, reply) => {
        const { params } = request;
        const name = 'secretname' in params ? params.secretname : params.variablename;
        await settings.delete(await owned(request), kind, name);
        return reply.code(204).send(null);
      },
    );

  server.get(
    '/orgs/:org/actions/secrets',
    {
      schema: {
        tags,
        summary: "List an organisation's CI secrets (names only)",
        params: OrgParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiSecretSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const listed = await settings.list(await owned(request), 'secret');
      return page(request, reply, listed).map(toApiSecret);
    },
  );
  server.put(
    '/orgs/:org/actions/secrets/:secretname',
    {
      schema: {
        tags,
        summary: 'Create (201) or replace (204) an organisation CI secret',
        params: SecretParams,
        body: SecretOptionSchema,
        response: { 201: Type.Null(), 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const access = await owned(request);
      const created = await settings.putSecret(
        access,
        request.params.secretname,
        request.body.data,
      );
      return reply.code(created ? 201 : 204).send(null);
    },
  );
  deletion('secret', SecretParams);

  const variable = (info: OrgSettingInfo) => toApiOrgVariable({ ...info, value: info.value ?? '' });
  server.get(
    '/orgs/:org/actions/variables',
    {
      schema: {
        tags,
        summary: "List an organisation's CI variables",
        params: OrgParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiActionVariableSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const listed = await settings.list(await owned(request), 'variable');
      return page(request, reply, listed).map(variable);
    },
  );
  server.get(
    '/orgs/:org/actions/variables/:variablename',
    {
      schema: {
        tags,
        summary: 'Get an organisation CI variable',
        params: VariableParams,
        response: { 200: ApiActionVariableSchema, ...errorResponses },
      },
    },
    async (request) =>
      variable(await settings.getVariable(await owned(request), request.params.variablename)),
  );
  server.post(
    '/orgs/:org/actions/variables/:variablename',
    {
      schema: {
        tags,
        summary: 'Create an organisation CI variable (409 when the name is taken)',
        params: VariableParams,
        body: VariableOptionSchema,
        response: { 201: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const access = await owned(request);
      await settings.createVariable(access, request.params.variablename, request.body.value);
      return reply.code(201).send(null);
    },
  );
  server.put(
    '/orgs/:org/actions/variables/:variablename',
    {
      schema: {
        tags,
        summary: 'Change an organisation CI variable, renaming it when `name` is given',
        params: VariableParams,
        body: VariableOptionSchema,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const access = await owned(request);
      await settings.updateVariable(access, request.params.variablename, {
        value: request.body.value,
        ...(request.body.name ? { rename: request.body.name } : {}),
      });
      return reply.code(204).send(null);
    },
  );
  deletion('variable', VariableParams);
}
