import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Invalid, NotFound } from '../../../domain/errors.ts';
import {
  PULL_SORTS,
  type PullSort,
  type PullStateFilter,
} from '../../../domain/pulls/pull.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { isOneOf } from '../../../lib/narrow.ts';
import type { ConvertContext } from '../../../present/context.ts';
import type { PullViews } from '../../../present/pull-views.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  ApiPullRequestSchema,
  CreatePullRequestOptionSchema,
  EditPullRequestOptionSchema,
  MergePullRequestOptionSchema,
} from '../../../present/schemas/pull.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';
import { RepoParams, repoParamsWith } from './params.ts';

const PullParams = repoParamsWith({
  number: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});
const ListQuery = Type.Object(
  {
    ...PagingQuerySchema.properties,
    state: Type.Optional(
      Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('all')]),
    ),
    sort: Type.Optional(Type.String({ maxLength: 40 })),
    poster: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: true },
);
const tags = ['repository'];
const conflict = { 409: errorResponses[404] };

function readSort(value: string | undefined): PullSort {
  if (value === undefined || value === '') return 'newest';
  if (isOneOf(PULL_SORTS, value)) return value;
  throw new Invalid(`sort must be one of ${PULL_SORTS.join(', ')}`);
}

/** What the routes use: pull requests and merges, and the configuration for base URLs. */
export type PullRouteDeps = {
  readonly services: Pick<DomainServices, 'pulls' | 'pullMerges'>;
  readonly config: BaseUrlConfig;
  /** The facts PullRequest records show. */
  readonly views: PullViews;
};

/** Pull requests, Gitea-compatible: list, create, read, edit (close/reopen) and merge. */
export function registerPullRoutes(parent: FastifyInstance, deps: PullRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { pulls, pullMerges } = deps.services;
  const { views } = deps;
  const context = (request: FastifyRequest): ConvertContext => ({
    baseUrl: baseUrlOf(request, deps.config),
  });

  server.get(
    '/repos/:owner/:name/pulls',
    {
      schema: {
        summary: 'List pull requests (state open, closed or all — all when absent, as Gitea does)',
        tags,
        params: RepoParams,
        querystring: ListQuery,
        response: { 200: Type.Array(ApiPullRequestSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const viewer = viewerUser(request.viewer);
      const paging = readPaging(request.query);
      const state: PullStateFilter = request.query.state ?? 'all';
      const { items, total } = await pulls.list(
        viewer,
        request.params.owner,
        request.params.name,
        {
          state,
          sort: readSort(request.query.sort),
          ...(request.query.poster ? { poster: request.query.poster } : {}),
        },
        paging,
      );
      setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, total);
      return views.many(viewer, items, context(request));
    },
  );

  server.post(
    '/repos/:owner/:name/pulls',
    {
      schema: {
        summary: 'Open a pull request (head is "branch" or "owner:branch" of a fork)',
        tags,
        params: RepoParams,
        body: CreatePullRequestOptionSchema,
        response: { 201: ApiPullRequestSchema, ...errorResponses, ...conflict },
      },
    },
    async (request, reply) => {
      const actor = requireUser(request);
      const body = request.body;
      const created = await pulls.create(actor, request.params.owner, request.params.name, {
        title: body.title,
        head: body.head,
        base: body.base,
        ...(body.body !== undefined ? { body: body.body } : {}),
      });
      return reply.status(201).send(await views.one(actor, created, context(request)));
    },
  );

  server.get(
    '/repos/:owner/:name/pulls/:number',
    {
      schema: {
        summary: 'A pull request',
        tags,
        params: PullParams,
        response: { 200: ApiPullRequestSchema, ...errorResponses },
      },
    },
    async (request) => {
      const viewer = viewerUser(request.viewer);
      const found = await pulls.get(
        viewer,
        request.params.owner,
        request.params.name,
        request.params.number,
      );
      return views.one(viewer, found, context(request));
    },
  );

  server.patch(
    '/repos/:owner/:name/pulls/:number',
    {
      schema: {
        summary:
          'Edit title and body, close (state closed) or reopen (state open); answers 201 as Gitea does',
        tags,
        params: PullParams,
        body: EditPullRequestOptionSchema,
        response: { 201: ApiPullRequestSchema, ...errorResponses, ...conflict },
      },
    },
    async (request, reply) => {
      const actor = requireUser(request);
      const { title, body, state } = request.body;
      const updated = await pulls.update(
        actor,
        request.params.owner,
        request.params.name,
        request.params.number,
        {
          ...(title !== undefined && title !== '' ? { title } : {}),
          ...(body !== undefined ? { body } : {}),
          ...(state !== undefined ? { state } : {}),
        },
      );
      return reply.status(201).send(await views.one(actor, updated, context(request)));
    },
  );

  server.get(
    '/repos/:owner/:name/pulls/:number/merge',
    {
      schema: {
        summary: 'Is the pull request merged? 204 yes, 404 no',
        tags,
        params: PullParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const found = await pulls.get(
        viewerUser(request.viewer),
        request.params.owner,
        request.params.name,
        request.params.number,
      );
      if (!found.pull.merged) throw new NotFound('pull request has not been merged');
      return reply.status(204).send(null);
    },
  );

  server.post(
    '/repos/:owner/:name/pulls/:number/merge',
    {
      schema: {
        summary: 'Merge a pull request with a merge commit (the strategy asked for is ignored)',
        tags,
        params: PullParams,
        body: MergePullRequestOptionSchema,
        response: { 200: Type.Null(), ...errorResponses, 405: errorResponses[404], ...conflict },
      },
    },
    async (request, reply) => {
      await pullMerges.merge(
        requireUser(request),
        request.params.owner,
        request.params.name,
        request.params.number,
        { force: request.body?.force_merge === true },
      );
      // Gitea answers a successful merge with 200 and an empty body.
      return reply.status(200).send(null);
    },
  );
}
