import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../../config/config.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { foldId } from '../../../lib/ids.ts';
import type { ConvertContext } from '../../../present/context.ts';
import { toApiDeployKey } from '../../../present/public-key.ts';
import type { RepoViews } from '../../../present/repo-views.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  ApiCreateKeyOptionSchema,
  ApiDeployKeySchema,
  KeyListQuerySchema,
} from '../../../present/schemas/key.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { pageOfKeys } from './keys.routes.ts';
import { PagingQuerySchema } from './paging.ts';
import { RepoParams, repoParamsWith } from './params.ts';

const tags = ['repository'];
const KeyParams = repoParamsWith({ id: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }) });
const ListQuery = Type.Object({
  ...PagingQuerySchema.properties,
  ...KeyListQuerySchema.properties,
  key_id: Type.Optional(Type.String({ maxLength: 20 })),
});

/** What the routes use: deploy keys, the repository records, and the URL settings. */
export type DeployKeyRouteDeps = {
  readonly services: Pick<DomainServices, 'sshKeys'>;
  readonly config: BaseUrlConfig & Pick<Config, 'ssh'>;
  readonly views: RepoViews;
};

/**
 * Gitea's deploy keys: keys that open one repository over SSH, read-only unless made
 * otherwise, listed, added and removed by the repository's administrators.
 */
export function registerDeployKeyRoutes(parent: FastifyInstance, deps: DeployKeyRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { sshKeys } = deps.services;
  const context = (request: FastifyRequest): ConvertContext => ({
    baseUrl: baseUrlOf(request, deps.config),
    ssh: deps.config.ssh,
  });
  /** The key's repository as Gitea shows it; whoever sees deploy keys administers it. */
  const record = (request: FastifyRequest, repo: Repository) =>
    deps.views.one(
      viewerUser(request.viewer),
      { repo, access: { level: 'admin' } },
      context(request),
    );

  server.get(
    '/repos/:owner/:name/keys',
    {
      schema: {
        summary: "A repository's deploy keys",
        tags,
        params: RepoParams,
        querystring: ListQuery,
        response: { 200: Type.Array(ApiDeployKeySchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, name } = request.params;
      const { repo, keys } = await sshKeys.listDeployKeys(viewerUser(request.viewer), owner, name);
      const keyId = request.query.key_id;
      const wanted = keyId ? keys.filter((key) => String(foldId(key.id)) === keyId) : keys;
      const shown = context(request);
      const repository = await record(request, repo);
      return pageOfKeys(request, reply, shown.baseUrl ?? '', wanted, request.query).map((key) =>
        toApiDeployKey(key, repo, shown, repository),
      );
    },
  );

  server.post(
    '/repos/:owner/:name/keys',
    {
      schema: {
        summary: 'Add a deploy key (read-only unless `read_only` is false)',
        tags,
        params: RepoParams,
        body: ApiCreateKeyOptionSchema,
        response: { 201: ApiDeployKeySchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, name } = request.params;
      const made = await sshKeys.addDeployKey(requireUser(request), owner, name, {
        title: request.body.title,
        key: request.body.key,
        readOnly: request.body.read_only,
      });
      const repository = await record(request, made.repo);
      return reply
        .status(201)
        .send(toApiDeployKey(made.key, made.repo, context(request), repository));
    },
  );

  server.get(
    '/repos/:owner/:name/keys/:id',
    {
      schema: {
        summary: 'One deploy key',
        tags,
        params: KeyParams,
        response: { 200: ApiDeployKeySchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name, id } = request.params;
      const { repo, key } = await sshKeys.getDeployKey(
        viewerUser(request.viewer),
        owner,
        name,
        Number(id),
      );
      return toApiDeployKey(key, repo, context(request), await record(request, repo));
    },
  );

  server.delete(
    '/repos/:owner/:name/keys/:id',
    {
      schema: {
        summary: 'Remove a deploy key',
        tags,
        params: KeyParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, name, id } = request.params;
      await sshKeys.deleteDeployKey(requireUser(request), owner, name, Number(id));
      return reply.status(204).send(null);
    },
  );
}
