import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PullInContext } from '../../../domain/pulls/pull.service.ts';
import type { PullReview } from '../../../domain/pulls/pull-review.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { loadGiteaReviewComments, loadPullReviews } from '../../../present/pull-review.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  ApiGiteaReviewCommentSchema,
  ApiPullReviewSchema,
  CreatePullReviewOptionsSchema,
  DismissPullReviewOptionsSchema,
  SubmitPullReviewOptionsSchema,
} from '../../../present/schemas/pull-review.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';
import { repoParamsWith } from './params.ts';

const Index = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const PullParams = repoParamsWith({ number: Index });
const ReviewParams = repoParamsWith({ number: Index, id: Index });
const tags = ['repository'];

/** What the routes use: reviews, their comments and authors, and the base URL settings. */
export type PullReviewRouteDeps = {
  readonly services: Pick<DomainServices, 'pullReviews' | 'users'>;
  readonly config: BaseUrlConfig;
};

/** `''` (Gitea's zero value) reads as no event: the review stays pending. */
const eventOf = <T extends string>(event: T | '' | undefined) => (event === '' ? undefined : event);

/**
 * Reviews of pull requests, Gitea-compatible: list, create (pending or with a verdict), get,
 * submit, delete, list a review's comments, and dismiss.
 */
export function registerPullReviewRoutes(parent: FastifyInstance, deps: PullReviewRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { pullReviews } = deps.services;
  const base = '/repos/:owner/:name/pulls/:number/reviews';

  const convert = (request: FastifyRequest, context: PullInContext, reviews: PullReview[]) =>
    loadPullReviews(
      deps.services,
      { repo: context.base.repo, number: context.pull.number, headSha: context.pull.headSha },
      reviews,
      { baseUrl: baseUrlOf(request, deps.config) },
    );
  const one = async (request: FastifyRequest, context: PullInContext, review: PullReview) => {
    const [api] = await convert(request, context, [review]);
    if (!api) throw new Error('a converted review went missing');
    return api;
  };

  server.get(
    base,
    {
      schema: {
        summary: "A pull request's reviews, oldest first",
        tags,
        params: PullParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiPullReviewSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, name, number } = request.params;
      const { context, reviews } = await pullReviews.list(
        viewerUser(request.viewer),
        owner,
        name,
        number,
      );
      const paging = readPaging(request.query);
      setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, reviews.length);
      return convert(request, context, reviews.slice(paging.offset, paging.offset + paging.limit));
    },
  );

  server.post(
    base,
    {
      schema: {
        summary: 'Review a pull request: APPROVED, REQUEST_CHANGES, COMMENT, or pending',
        tags,
        params: PullParams,
        body: CreatePullReviewOptionsSchema,
        response: { 200: ApiPullReviewSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name, number } = request.params;
      const { body } = request;
      const { context, review } = await pullReviews.create(
        requireUser(request),
        owner,
        name,
        number,
        {
          event: eventOf(body.event),
          body: body.body,
          commitId: body.commit_id,
          comments: (body.comments ?? []).map((comment) => ({
            path: comment.path,
            body: comment.body,
            newLine: comment.new_position,
            oldLine: comment.old_position,
          })),
        },
      );
      return one(request, context, review);
    },
  );

  server.get(
    `${base}/:id`,
    {
      schema: {
        summary: 'One review',
        tags,
        params: ReviewParams,
        response: { 200: ApiPullReviewSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name, number, id } = request.params;
      const found = await pullReviews.get(viewerUser(request.viewer), owner, name, number, id);
      return one(request, found.context, found.review);
    },
  );

  server.post(
    `${base}/:id`,
    {
      schema: {
        summary: 'Submit a pending review with a verdict',
        tags,
        params: ReviewParams,
        body: SubmitPullReviewOptionsSchema,
        response: { 200: ApiPullReviewSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name, number, id } = request.params;
      const found = await pullReviews.submit(requireUser(request), owner, name, number, id, {
        event: eventOf(request.body.event),
        body: request.body.body,
      });
      return one(request, found.context, found.review);
    },
  );

  server.delete(
    `${base}/:id`,
    {
      schema: {
        summary: 'Delete a review and its comments (its reviewer or a repository admin)',
        tags,
        params: ReviewParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, name, number, id } = request.params;
      await pullReviews.delete(requireUser(request), owner, name, number, id);
      return reply.status(204).send(null);
    },
  );

  server.get(
    `${base}/:id/comments`,
    {
      schema: {
        summary: "A review's line comments",
        tags,
        params: ReviewParams,
        response: { 200: Type.Array(ApiGiteaReviewCommentSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name, number, id } = request.params;
      const { context, comments } = await pullReviews.comments(
        viewerUser(request.viewer),
        owner,
        name,
        number,
        id,
      );
      return loadGiteaReviewComments(
        deps.services,
        { repo: context.base.repo, number, headSha: context.pull.headSha },
        comments,
        { baseUrl: baseUrlOf(request, deps.config) },
      );
    },
  );

  server.post(
    `${base}/:id/dismissals`,
    {
      schema: {
        summary: 'Dismiss an approval or a request for changes (repository admins)',
        tags,
        params: ReviewParams,
        body: DismissPullReviewOptionsSchema,
        response: { 200: ApiPullReviewSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name, number, id } = request.params;
      const found = await pullReviews.dismiss(requireUser(request), owner, name, number, id, {
        message: request.body.message ?? '',
        priors: request.body.priors ?? false,
      });
      return one(request, found.context, found.review);
    },
  );
}
