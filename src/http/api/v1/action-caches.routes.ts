import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { CiCacheService } from '../../../domain/ci/cache/cache.service.ts';
import { toApiActionsCache } from '../../../present/action-cache.ts';
import {
  ActionsCacheDeleteQuerySchema,
  ActionsCacheQuerySchema,
  ApiActionsCacheListSchema,
} from '../../../present/schemas/action-cache.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { readPaging, setPagingHeaders } from './paging.ts';
import { RepoParams, repoParamsWith } from './params.ts';

/** What the cache routes use. */
export type ActionCacheRoutesDeps = {
  readonly caches: Pick<CiCacheService, 'list' | 'deleteByKey' | 'deleteById'>;
  readonly config: BaseUrlConfig;
};

const tags = ['repository'];
const CacheParams = repoParamsWith({
  cache: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});

/**
 * A repository's Actions cache as GitHub's REST API has it: the list (filtered by `ref` and a
 * `key` prefix) and deletion by key or id. Writers only, as on GitHub (`actions: write`):
 * readers and outsiders of a private repository get what `require` answers them.
 */
export function registerActionCacheRoutes(parent: FastifyInstance, deps: ActionCacheRoutesDeps) {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { caches } = deps;

  server.get(
    '/repos/:owner/:name/actions/caches',
    {
      schema: {
        summary: 'List the Actions cache entries of a repository, most recently used first',
        tags,
        params: RepoParams,
        querystring: ActionsCacheQuerySchema,
        response: { 200: ApiActionsCacheListSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { query, params } = request;
      const paging = readPaging({ page: query.page, limit: query.limit ?? query.per_page });
      const listed = await caches.list(
        requireUser(request),
        params.owner,
        params.name,
        { scope: query.ref, keyPrefix: query.key },
        paging,
      );
      setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, listed.total);
      return { total_count: listed.total, actions_caches: listed.entries.map(toApiActionsCache) };
    },
  );

  server.delete(
    '/repos/:owner/:name/actions/caches',
    {
      schema: {
        summary: 'Delete the Actions cache entries of a key (and ref)',
        tags,
        params: RepoParams,
        querystring: ActionsCacheDeleteQuerySchema,
        response: { 200: ApiActionsCacheListSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { query, params } = request;
      const removed = await caches.deleteByKey(
        requireUser(request),
        params.owner,
        params.name,
        query.key,
        query.ref,
      );
      return { total_count: removed.length, actions_caches: removed.map(toApiActionsCache) };
    },
  );

  server.delete(
    '/repos/:owner/:name/actions/caches/:cache',
    {
      schema: {
        summary: 'Delete one Actions cache entry',
        tags,
        params: CacheParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { params } = request;
      await caches.deleteById(requireUser(request), params.owner, params.name, params.cache);
      return reply.status(204).send(null);
    },
  );
}
