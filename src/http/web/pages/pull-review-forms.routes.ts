import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { REVIEW_VERDICTS, type ReviewVerdict } from '../../../domain/pulls/pull-review.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { foldId } from '../../../lib/ids.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import type { Pages } from '../page.ts';
import { type PageRequest, PullCommentParams, PullParams } from '../page-params.ts';
import { signedInPoster } from '../require-user.ts';
import { pullUrl } from '../views/pull.ts';
import { pullNumberOf } from './pull-state.routes.ts';

/** What the review forms of a pull use. */
export type PullReviewFormDeps = {
  readonly services: Pick<DomainServices, 'pulls' | 'pullReviews'>;
};

/** A wire id as the path gives it (ids use all of a safe integer), or 0, which names nothing. */
const wholeNumber = (text: string) => {
  const value = /^\d{1,16}$/.test(text) ? Number(text) : 0;
  return Number.isSafeInteger(value) ? value : 0;
};

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

  /** A signed-in poster with a valid CSRF token (else the redirect is sent) and the pull. */
  const start = async (request: PageRequest<PullParams>, reply: FastifyReply) => {
    const user = signedInPoster(request, reply);
    if (!user) return undefined;
    const { owner, name } = request.params;
    const number = pullNumberOf(request);
    const found = await pulls.get(user, owner, name, number);
    return { user, owner, name, number, url: pullUrl(found.base.repo, number) };
  };

  server.post(
    '/repos/:owner/:name/pulls/:number/reviews',
    { schema: { params: PullParams } },
    async (request, reply) => {
      const started = await start(request, reply);
      if (!started) return reply;
      const { user, owner, name, number, url } = started;
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
      const started = await start(request, reply);
      if (!started) return reply;
      const { user, owner, name, number, url } = started;
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
