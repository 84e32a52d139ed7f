import { z } from 'zod';
import { loadReviewComments } from '../present/review-comment-views.ts';
import { addListTool, addTool, pullArgs, recordResult, type ToolKit } from './tool-kit.ts';

const lineArg = z.number().int().min(1).max(10_000_000);

/** Line-review comments on a pull request's diff: list and create. */
export function registerReviewCommentTools(kit: ToolKit<'reviewComments' | 'users'>): void {
  const { services, context } = kit;
  const { reviewComments } = services;

  addListTool(
    kit,
    'list_review_comments',
    {
      title: 'List review comments',
      description:
        "A pull request's line-review comments, oldest first: `body`, `path`, `line` (new " +
        'side) or `old_line` (old side) with `side` RIGHT or LEFT, the `commit_id` it was made ' +
        'on, the `diff_hunk` it points into, `in_reply_to_id` for answers, and `user`. ' +
        'Paginated: `page`, `limit` (at most 50); the result has `items`, `total`, `next_page`.',
      args: pullArgs,
    },
    async ({ owner, repo, number }, paging, user) => {
      const found = await reviewComments.list(user, owner, repo, number);
      const page = found.comments.slice(paging.offset, paging.offset + paging.limit);
      const where = { repo: found.context.base.repo, number };
      const records = await loadReviewComments(services, where, page, context);
      return { items: records, total: found.comments.length };
    },
  );

  addTool(
    kit,
    'create_review_comment',
    {
      title: 'Comment on a line of a pull request',
      description:
        "Comments on one line of a pull request's diff. Give `path` and `line` (a line number " +
        'in the new version of the file), or `old_line` (side "LEFT") for a removed line; ' +
        "the line must be part of the diff. `commit_id` defaults to the pull's current head. " +
        'To answer an existing comment give only `body` and `in_reply_to_id` (the `id` of that ' +
        'comment); it then takes its place. Returns the new comment record.',
      input: z.strictObject({
        ...pullArgs,
        body: z.string().min(1).max(65_536).describe('The comment, in Markdown'),
        path: z.string().min(1).max(4096).optional().describe('File path within the repository'),
        line: lineArg.optional().describe('Line number on the new side (side RIGHT)'),
        old_line: lineArg.optional().describe('Line number on the old side (side LEFT)'),
        side: z
          .enum(['RIGHT', 'LEFT'])
          .optional()
          .describe(
            'RIGHT: new side; LEFT: old side; default LEFT only when just old_line is given',
          ),
        commit_id: z
          .string()
          .min(4)
          .max(64)
          .optional()
          .describe('Commit of the pull the line numbers refer to; default its current head'),
        in_reply_to_id: z
          .number()
          .int()
          .min(1)
          .max(Number.MAX_SAFE_INTEGER)
          .optional()
          .describe('The `id` of the comment this one answers'),
      }),
      effect: 'add',
    },
    async ({ owner, repo, number, ...input }, user) => {
      const created = await reviewComments.create(user, owner, repo, number, {
        body: input.body,
        path: input.path,
        line: input.line,
        oldLine: input.old_line,
        side: input.side,
        commitId: input.commit_id,
        inReplyTo: input.in_reply_to_id,
      });
      const where = { repo: created.context.base.repo, number };
      const [record] = await loadReviewComments(services, where, [created.comment], context);
      if (!record) throw new Error('comment author vanished');
      return recordResult(record);
    },
  );
}
