import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReviewComment } from '../../../domain/pulls/review-comment.service.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { loadReviewComments } from '../../../present/review-comment-views.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  ApiPullReviewCommentSchema,
  CreateReviewCommentOptionSchema,
} from '../../../present/schemas/pull.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';
import { repoParamsWith } from './params.ts';

const PullParams = repoParamsWith({
  number: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});
const CommentParams = repoParamsWith({
  id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});
const tags = ['repository'];

/** What the routes use: line-review comments and their authors, and the configuration for base URLs. */
export type ReviewCommentRouteDeps = {
  readonly services: Pick<DomainServices, 'reviewComments' | 'users'>;
  readonly config: BaseUrlConfig;
};

/**
 * Line-review comments on pull requests (Kiln's own feature, Gitea-style in its shapes):
 * list and create under a pull, edit and delete by comment id.
 */
export function registerReviewCommentRoutes(
  parent: FastifyInstance,
  deps: ReviewCommentRouteDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { reviewComments } = deps.services;

  const convert = (
    request: FastifyRequest,
    repo: Repository,
    number: number,
    comments: ReviewComment[],
  ) =>
    loadReviewComments(deps.services, { repo, number }, comments, {
      baseUrl: baseUrlOf(request, deps.config),
    });

  server.get(
    '/repos/:owner/:name/pulls/:number/comments',
    {
      schema: {
        summary: "A pull request's line-review comments, oldest first",
        tags,
        params: PullParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiPullReviewCommentSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, name, number } = request.params;
      const { context, comments } = await reviewComments.list(
        viewerUser(request.viewer),
        owner,
        name,
        number,
      );
      const paging = readPaging(request.query);
      setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, comments.length);
      return convert(
        request,
        context.base.repo,
        number,
        comments.slice(paging.offset, paging.offset + paging.limit),
      );
    },
  );

  server.post(
    '/repos/:owner/:name/pulls/:number/comments',
    {
      schema: {
        summary: 'Comment on a line of the diff (line on the new side, or old_line with side LEFT)',
        tags,
        params: PullParams,
        body: CreateReviewCommentOptionSchema,
        response: { 201: ApiPullReviewCommentSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, name, number } = request.params;
      const body = request.body;
      const { context, comment } = await reviewComments.create(
        requireUser(request),
        owner,
        name,
        number,
        {
          body: body.body,
          path: body.path,
          line: body.line,
          oldLine: body.old_line,
          side: body.side,
          commitId: body.commit_id,
          inReplyTo: body.in_reply_to_id,
        },
      );
      const [api] = await convert(request, context.base.repo, number, [comment]);
      if (!api) throw new Error('comment author vanished');
      return reply.status(201).send(api);
    },
  );

  server.patch(
    '/repos/:owner/:name/pulls/comments/:id',
    {
      schema: {
        summary: 'Edit a line-review comment (its author or a repository admin)',
        tags,
        params: CommentParams,
        body: Type.Object({ body: Type.String({ minLength: 1 }) }),
        response: { 200: ApiPullReviewCommentSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name, id } = request.params;
      const { context, comment } = await reviewComments.update(
        requireUser(request),
        owner,
        name,
        id,
        request.body.body,
      );
      const [api] = await convert(request, context.base.repo, context.pull.number, [comment]);
      if (!api) throw new Error('comment author vanished');
      return api;
    },
  );

  server.delete(
    '/repos/:owner/:name/pulls/comments/:id',
    {
      schema: {
        summary: 'Delete a line-review comment (its author or a repository admin)',
        tags,
        params: CommentParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, name, id } = request.params;
      await reviewComments.delete(requireUser(request), owner, name, id);
      return reply.status(204).send(null);
    },
  );
}
