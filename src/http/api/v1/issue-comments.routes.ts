import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { PullInContext } from '../../../domain/pulls/pull.service.ts';
import type { ReviewComment } from '../../../domain/pulls/review-comment.service.ts';
import { foldId } from '../../../lib/ids.ts';
import { loadApiComment } from '../../../present/review-comment-views.ts';
import {
  ApiCommentSchema,
  EditIssueCommentOptionSchema,
} from '../../../present/schemas/comment.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { baseUrlOf } from '../../base-url.ts';
import { CommentParams, type ReviewCommentRouteDeps } from './review-comments.routes.ts';

const tags = ['issue'];

/** What the routes use: the same as the pull's own comment routes. */
export type IssueCommentRouteDeps = ReviewCommentRouteDeps;

/**
 * Gitea's issue-comment endpoints by id, which is where Gitea clients read, edit and delete a
 * pull's line-review comments (Gitea stores them as issue comments; its `/pulls/` API has no
 * edit or delete). Kiln has no issues, so every id here names a review comment; the rules are
 * the same as on the pull's page: its author or a writer edits and deletes.
 */
export function registerIssueCommentRoutes(
  parent: FastifyInstance,
  deps: IssueCommentRouteDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { reviewComments } = deps.services;

  const convert = async (
    request: FastifyRequest,
    context: PullInContext,
    comment: ReviewComment,
  ) => {
    const where = { repo: context.base.repo, number: context.pull.number };
    const api = await loadApiComment(deps.services, where, comment, {
      baseUrl: baseUrlOf(request, deps.config),
    });
    if (!api) throw new NotFound(`comment does not exist [id: ${foldId(comment.id)}]`);
    return api;
  };

  server.get(
    '/repos/:owner/:name/issues/comments/:id',
    {
      schema: {
        summary: 'A comment (here, a line-review comment of a pull request)',
        tags,
        params: CommentParams,
        response: { 200: ApiCommentSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name, id } = request.params;
      const found = await reviewComments.find(viewerUser(request.viewer), owner, name, id);
      return convert(request, found.context, found.comment);
    },
  );

  server.patch(
    '/repos/:owner/:name/issues/comments/:id',
    {
      schema: {
        summary: 'Edit a comment (its author or a writer)',
        tags,
        params: CommentParams,
        body: EditIssueCommentOptionSchema,
        response: { 200: ApiCommentSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name, id } = request.params;
      const user = requireUser(request);
      const { context, comment } = await reviewComments.update(
        user,
        owner,
        name,
        id,
        request.body.body,
      );
      return convert(request, context, comment);
    },
  );

  server.delete(
    '/repos/:owner/:name/issues/comments/:id',
    {
      schema: {
        summary: 'Delete a comment (its author or a writer)',
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
