import { z } from 'zod';
import type { PullInContext } from '../domain/pulls/pull.service.ts';
import type { PullReview } from '../domain/pulls/pull-review.types.ts';
import { loadPullReviews } from '../present/pull-review.ts';
import { addListTool, addTool, pullArgs, recordResult, type ToolKit } from './tool-kit.ts';

const body = z.string().max(65_536);
const verdict = z.enum(['APPROVED', 'REQUEST_CHANGES', 'COMMENT']);

/** Reviews of pull requests with a verdict: list, create (pending or submitted), submit. */
export function registerReviewTools(kit: ToolKit<'pullReviews' | 'users'>): void {
  const { services, context } = kit;
  const { pullReviews } = services;
  /** One review as a record, in the REST shape with null URLs. */
  const one = async (found: { context: PullInContext; review: PullReview }) => {
    const { base, pull } = found.context;
    const where = { repo: base.repo, number: pull.number, headSha: pull.headSha };
    const [record] = await loadPullReviews(services, where, [found.review], context);
    if (!record) throw new Error('a converted review went missing');
    return recordResult(record);
  };

  addListTool(
    kit,
    'list_reviews',
    {
      title: 'List pull request reviews',
      description:
        "A pull request's reviews, oldest first: `state` (APPROVED, REQUEST_CHANGES, COMMENT, " +
        'or PENDING for your own unsubmitted one), `body`, `user`, `commit_id`, `stale` (the head ' +
        'moved on since), `official` (counts toward required approvals), `dismissed`, ' +
        '`comments_count`. Paginated: `page`, `limit` (at most 50).',
      args: pullArgs,
    },
    async ({ owner, repo, number }, paging, user) => {
      const found = await pullReviews.list(user, owner, repo, number);
      const page = found.reviews.slice(paging.offset, paging.offset + paging.limit);
      const where = {
        repo: found.context.base.repo,
        number,
        headSha: found.context.pull.headSha,
      };
      return {
        items: await loadPullReviews(services, where, page, context),
        total: found.reviews.length,
      };
    },
  );

  addTool(
    kit,
    'create_review',
    {
      title: 'Review a pull request',
      description:
        'Reviews a pull request. `event` APPROVED, REQUEST_CHANGES (needs a `body`) or COMMENT ' +
        '(needs a `body` or a comment) submits at once; leave it out to keep the review pending ' +
        'and submit it later with submit_review. `comments`: line comments, each `path`, `body` ' +
        'and `new_position` (a line of the new file) or `old_position` (of the old one). Nobody ' +
        'approves or rejects their own pull request. Returns the review.',
      input: z.strictObject({
        ...pullArgs,
        event: verdict.optional(),
        body: body.optional().describe('The review summary, in Markdown'),
        comments: z
          .array(
            z.strictObject({
              path: z.string().min(1).max(4096),
              body: body.min(1),
              new_position: z.number().int().min(0).max(10_000_000).optional(),
              old_position: z.number().int().min(0).max(10_000_000).optional(),
            }),
          )
          .max(100)
          .optional(),
      }),
      effect: 'add',
    },
    async ({ owner, repo, number, event, body: text, comments }, user) => {
      const created = await pullReviews.create(user, owner, repo, number, {
        event,
        body: text,
        comments: (comments ?? []).map((comment) => ({
          path: comment.path,
          body: comment.body,
          newLine: comment.new_position,
          oldLine: comment.old_position,
        })),
      });
      return one(created);
    },
  );

  addTool(
    kit,
    'submit_review',
    {
      title: 'Submit a pending review',
      description:
        'Submits your pending review (its `id` from create_review or list_reviews) with `event` ' +
        'APPROVED, REQUEST_CHANGES or COMMENT and an optional `body` replacing its summary. ' +
        'Returns the review.',
      input: z.strictObject({
        ...pullArgs,
        id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe('The review `id`'),
        event: verdict,
        body: body.optional(),
      }),
      effect: 'add',
    },
    async ({ owner, repo, number, id, event, body: text }, user) => {
      return one(await pullReviews.submit(user, owner, repo, number, id, { event, body: text }));
    },
  );
}
