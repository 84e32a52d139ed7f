import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { REVIEW_VERDICTS, type ReviewVerdict } from '../../../domain/pulls/pull-review.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { foldId } from '../../../lib/ids.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import type { Pages } from '../page.ts';
import { PullCommentParams, PullParams } from '../page-params.ts';
import { signedInPoster } from '../require-user.ts';
import { pullUrl } from '../views/pull.ts';
import { pullNumberOf } from './pull-state.routes.ts';

/** What the review forms of a pull use. */
export type PullReviewFormDeps = {
  readonly services: Pick<DomainServices, 'pulls' | 'pullReviews'>;
};

const wholeNumber = (text: string) => (/^\d{1,15}$/.test(text) ? Number(text) : 0);

/**
 * The forms behind "Review changes" (submit the viewer's review, pending line comments
 * included) and an admin's "Dismiss" on an approval or a request for changes; plain posts
 * behind sign-in and CSRF that come back to the pull's timeline.
 */
export function registerPullReviewFormRoutes(
  parent: FastifyInstance,
  deps: PullReviewFormDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { pulls, pullReviews } = deps.services;

  server.post(
    '/repos/:owner/:name/pulls/:number/reviews',
    { schema: { params: PullParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const number = pullNumberOf(request);
      const found = await pulls.get(user, owner, name, number);
      const url = pullUrl(found.base.repo, number);
      const event = field(request.body, 'event', 20);
      const verdict: ReviewVerdict = REVIEW_VERDICTS.includes(event as ReviewVerdict)
        ? (event as ReviewVerdict)
        : 'COMMENT';
      return formAction(
        pages,
        request,
        reply,
        async () => {
          const { review } = await pullReviews.create(user, owner, name, number, {
            event: verdict,
            body: field(request.body, 'body', 65_536),
          });
          return { to: `${url}#review-${foldId(review.id)}`, flash: 'Review submitted.' };
        },
        { passOn: ['not_found'], back: `${url}/files` },
      );
    },
  );

  server.post(
    '/repos/:owner/:name/pulls/:number/reviews/:id/dismiss',
    { schema: { params: PullCommentParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const number = pullNumberOf(request);
      const found = await pulls.get(user, owner, name, number);
      const url = pullUrl(found.base.repo, number);
      const id = wholeNumber(request.params.id);
      return formAction(
        pages,
        request,
        reply,
        async () => {
          await pullReviews.dismiss(user, owner, name, number, id, {
            message: field(request.body, 'message', 65_536),
            priors: false,
          });
          return { to: `${url}#review-${id}`, flash: 'Review dismissed.' };
        },
        { passOn: ['not_found'], back: url },
      );
    },
  );
}
