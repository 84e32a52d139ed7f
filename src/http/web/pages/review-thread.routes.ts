import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { foldId } from '../../../lib/ids.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { askToConfirm, isConfirmed } from '../confirmation.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import type { Pages } from '../page.ts';
import { type PageRequest, PullCommentParams, PullParams } from '../page-params.ts';
import { signedInPoster } from '../require-user.ts';
import { pullUrl } from '../views/pull.ts';
import type { ThreadTab } from '../views/review-thread.ts';

/** What the review thread forms of a pull use. */
export type ReviewThreadRouteDeps = {
  readonly services: Pick<DomainServices, 'pulls' | 'reviewComments' | 'pullReviews'>;
};

/**
 * A whole number as the path or a form gives it (wire ids use all of a safe integer), or 0,
 * which names nothing, when it is not one.
 */
function wholeNumber(text: string): number {
  const value = /^\d{1,16}$/.test(text) ? Number(text) : 0;
  return Number.isSafeInteger(value) ? value : 0;
}

/** The tab a form came from, as its `back` field names it, else `fallback`. */
function tabOf(body: unknown, fallback: ThreadTab = 'conversation'): ThreadTab {
  const named = field(body, 'back', 20);
  return named === 'files' || named === 'conversation' ? named : fallback;
}

/**
 * The forms on a pull's review threads, all plain posts that work without JavaScript: a new
 * comment on a line or a reply to a thread, editing and deleting a comment (deleting asks for
 * confirmation first), and resolving or reopening a thread. Each comes back to the tab it was
 * posted from, at the thread.
 */
export function registerReviewThreadRoutes(
  parent: FastifyInstance,
  deps: ReviewThreadRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { pulls, reviewComments, pullReviews } = deps.services;

  /**
   * What every thread form starts with: a signed-in user with a valid CSRF token (else the
   * redirect is sent and nothing is returned), the pull (NotFound to those who cannot see it)
   * and where its tab is.
   */
  const start = async (
    request: PageRequest<PullParams>,
    reply: FastifyReply,
    fallback?: ThreadTab,
  ) => {
    const user = signedInPoster(request, reply);
    if (!user) return undefined;
    const { owner, name } = request.params;
    const number = wholeNumber(request.params.number);
    const found = await pulls.get(viewerUser(request.viewer), owner, name, number);
    const url = pullUrl(found.base.repo, number);
    const tab = tabOf(request.body, fallback);
    const back = tab === 'files' ? `${url}/files` : url;
    return { user, owner, name, number, url, back };
  };

  server.post(
    '/repos/:owner/:name/pulls/:number/comments',
    { schema: { params: PullParams } },
    async (request, reply) => {
      const inReplyTo = field(request.body, 'in_reply_to', 20);
      // A comment on a line is written on the files tab; a reply may come from either.
      const started = await start(request, reply, inReplyTo ? 'conversation' : 'files');
      if (!started) return reply;
      const { user, owner, name, number, back } = started;
      const side = field(request.body, 'side') === 'LEFT' ? 'LEFT' : 'RIGHT';
      const line = Number(field(request.body, 'line', 12));
      const body = field(request.body, 'body', 65_536);
      return formAction(
        pages,
        request,
        reply,
        async () => {
          // "Start a review" keeps the comment in the viewer's pending review until submitted.
          if (!inReplyTo && field(request.body, 'review', 10) === 'start') {
            await pullReviews.create(user, owner, name, number, {
              comments: [
                {
                  body,
                  path: field(request.body, 'path', 4096),
                  ...(side === 'RIGHT' ? { newLine: line } : { oldLine: line }),
                },
              ],
            });
            return { to: `${back}#review-changes` };
          }
          const { comment } = await reviewComments.create(
            user,
            owner,
            name,
            number,
            inReplyTo
              ? { body, inReplyTo: wholeNumber(inReplyTo) }
              : {
                  body,
                  path: field(request.body, 'path', 4096),
                  side,
                  ...(side === 'RIGHT' ? { line } : { oldLine: line }),
                },
          );
          return { to: `${back}#comment-${foldId(comment.id)}` };
        },
        { passOn: ['not_found'], back },
      );
    },
  );

  /** A form on one comment: runs `change` with its wire id and returns to the tab. */
  const onComment = (
    action: 'edit' | 'delete' | 'resolve' | 'unresolve',
    change: (user: User, params: PullCommentParams, id: number, body: unknown) => Promise<string>,
  ) =>
    server.post(
      `/repos/:owner/:name/pulls/:number/comments/:id/${action}`,
      { schema: { params: PullCommentParams } },
      async (request, reply) => {
        const started = await start(request, reply);
        if (!started) return reply;
        const id = wholeNumber(request.params.id);
        if (action === 'delete' && !isConfirmed(request.body)) {
          return askToConfirm(pages, request, reply, {
            title: 'Delete this comment?',
            consequence:
              'The comment is removed from its review thread for everyone. This cannot be undone.',
            action: `${started.url}/comments/${id}/delete`,
            button: 'Delete comment',
            cancel: `${started.back}#comment-${id}`,
            fields: { back: tabOf(request.body) },
          });
        }
        return formAction(
          pages,
          request,
          reply,
          async () => {
            const anchor = await change(started.user, request.params, id, request.body);
            return { to: `${started.back}${anchor}` };
          },
          { passOn: ['not_found'], back: started.back },
        );
      },
    );

  onComment('edit', async (user, { owner, name }, id, body) => {
    await reviewComments.update(user, owner, name, id, field(body, 'body', 65_536));
    return `#comment-${id}`;
  });
  onComment('delete', async (user, { owner, name }, id) => {
    await reviewComments.delete(user, owner, name, id);
    return '';
  });
  for (const resolved of [true, false]) {
    onComment(resolved ? 'resolve' : 'unresolve', async (user, { owner, name }, id) => {
      const { first } = await reviewComments.resolve(user, owner, name, id, resolved);
      return `#thread-${foldId(first.id)}`;
    });
  }
}
