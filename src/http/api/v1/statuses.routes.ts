import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { ConvertContext } from '../../../present/context.ts';
import type { RepoViews } from '../../../present/repo-views.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  ApiCombinedStatusSchema,
  ApiCommitStatusSchema,
  CreateStatusOptionSchema,
} from '../../../present/schemas/status.ts';
import { Type } from '../../../present/schemas/type.ts';
import { toApiCombinedStatus, toApiCommitStatus } from '../../../present/status.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { strictValidatorCompiler } from '../../plugins/schema-compilers.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';
import { repoParamsWith } from './params.ts';

const tags = ['repository'];
const RefParams = repoParamsWith({
  // `{ref}/status` or `{ref}/statuses`, where the ref may hold slashes (raw or `%2F`).
  '*': Type.String({
    maxLength: 1000,
    description: '{ref}/status or {ref}/statuses; the ref is a branch, tag or sha',
  }),
});
const ShaParams = repoParamsWith({
  sha: Type.String({ maxLength: 64 }),
});
const StatusList = Type.Array(ApiCommitStatusSchema);

/** Splits `feature/x/statuses` into the ref and which of the two views was asked for. */
function splitRefPath(path: string): { ref: string; view: 'status' | 'statuses' } {
  const slash = path.lastIndexOf('/');
  const view = path.slice(slash + 1);
  const ref = path.slice(0, Math.max(slash, 0));
  if (slash <= 0 || (view !== 'status' && view !== 'statuses')) {
    throw new NotFound(`no route for commits/${path}`.slice(0, 300));
  }
  return { ref, view };
}

/** What the routes use: commit statuses, and the configuration for base URLs. */
export type StatusRouteDeps = {
  readonly services: Pick<DomainServices, 'commitStatuses'>;
  readonly config: BaseUrlConfig;
  /** The Repository record a combined status carries. */
  readonly views: RepoViews;
};

/**
 * Commit statuses, a stub (SPEC.md): a ref's combined status is always an all-clear, its list of
 * statuses is empty, and a posted status is echoed back and not kept. The ref must exist.
 */
export function registerStatusRoutes(parent: FastifyInstance, deps: StatusRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { commitStatuses } = deps.services;
  const { views } = deps;
  const context = (request: FastifyRequest): ConvertContext => ({
    baseUrl: baseUrlOf(request, deps.config),
  });
  /** A list of statuses, which is always empty: no statuses are kept. */
  const noStatuses = (request: FastifyRequest, reply: FastifyReply): [] => {
    const paging = readPaging(request.query);
    setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, 0);
    return [];
  };

  server.get(
    '/repos/:owner/:name/commits/*',
    {
      schema: {
        summary:
          'commits/{ref}/status: the all-clear combined status; commits/{ref}/statuses: none',
        tags,
        params: RefParams,
        querystring: PagingQuerySchema,
        response: {
          200: Type.Union([ApiCombinedStatusSchema, StatusList]),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { ref, view } = splitRefPath(request.params['*']);
      const viewer = viewerUser(request.viewer);
      const { visible, sha } = await commitStatuses.resolve(
        viewer,
        request.params.owner,
        request.params.name,
        ref,
      );
      if (view === 'statuses') return noStatuses(request, reply);
      reply.header('X-Total-Count', '0');
      const repository = await views.one(viewer, visible, context(request));
      return toApiCombinedStatus(sha, visible.repo, repository, context(request));
    },
  );

  server.get(
    '/repos/:owner/:name/statuses/:sha',
    {
      schema: {
        summary: "A commit's statuses: always none",
        tags,
        params: ShaParams,
        querystring: PagingQuerySchema,
        response: { 200: StatusList, ...errorResponses },
      },
    },
    async (request, reply) => {
      await commitStatuses.resolve(
        viewerUser(request.viewer),
        request.params.owner,
        request.params.name,
        request.params.sha,
      );
      return noStatuses(request, reply);
    },
  );

  server.post(
    '/repos/:owner/:name/statuses/:sha',
    {
      // Bodies are checked without coercion: Gitea refuses `5` for a string, `"yes"` for a boolean.
      validatorCompiler: strictValidatorCompiler,
      schema: {
        summary: 'Post a status: echoed back, not stored',
        tags,
        params: ShaParams,
        body: CreateStatusOptionSchema,
        response: { 201: ApiCommitStatusSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const { visible, status } = await commitStatuses.post(
        requireUser(request),
        request.params.owner,
        request.params.name,
        request.params.sha,
        {
          state: body.state,
          targetUrl: body.target_url,
          description: body.description,
          context: body.context,
        },
      );
      return reply.status(201).send(toApiCommitStatus(status, visible.repo, context(request)));
    },
  );
}
