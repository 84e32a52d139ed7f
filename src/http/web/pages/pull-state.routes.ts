import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { PullInContext } from '../../../domain/pulls/pull.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { askToConfirm, isConfirmed } from '../confirmation.ts';
import { formAction } from '../form-action.ts';
import type { Pages } from '../page.ts';
import { type PageRequest, PullParams } from '../page-params.ts';
import { signedInPoster } from '../require-user.ts';
import { pullUrl } from '../views/pull.ts';

/** What the merge, close and reopen forms of a pull request use. */
export type PullStateRouteDeps = {
  readonly services: Pick<DomainServices, 'pulls' | 'pullMerges'>;
};

/** The pull request number of a page's address; 0 (no such pull) when it is not one. */
export function pullNumberOf(request: { readonly params: Pick<PullParams, 'number'> }): number {
  const { number } = request.params;
  return /^\d{1,15}$/.test(number) ? Number(number) : 0;
}

/** What the second step of merging and closing asks, and says will happen. */
export const PULL_CONFIRMATIONS = {
  merge: {
    title: 'Merge this pull request?',
    consequence: ({ pull }: PullInContext) =>
      `A merge commit of ${pull.headBranch} is made on ${pull.baseBranch}, and the pull request is closed as merged.`,
  },
  'force-merge': {
    title: 'Merge without waiting?',
    consequence: ({ pull }: PullInContext) =>
      `As an administrator you merge ${pull.headBranch} into ${pull.baseBranch} although its protection still blocks the merge; the pull request records that you did.`,
  },
  close: {
    title: 'Close this pull request?',
    consequence: ({ pull }: PullInContext) =>
      `Pull request #${pull.number} is closed without merging; it can be reopened later.`,
  },
} as const;

/** The forms that merge, close and reopen a pull request, each behind sign-in and CSRF. */
export function registerPullStateRoutes(
  parent: FastifyInstance,
  deps: PullStateRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { pulls } = deps.services;

  /**
   * What every form posted to a pull starts with: a signed-in user (else the redirect is sent and
   * nothing is returned), a valid CSRF token, and the pull's address.
   */
  const startPost = async (request: PageRequest<PullParams>, reply: FastifyReply) => {
    const user = signedInPoster(request, reply);
    if (!user) return undefined;
    const { owner, name } = request.params;
    const number = pullNumberOf(request);
    const found = await pulls.get(viewerUser(request.viewer), owner, name, number);
    const url = pullUrl(found.base.repo, number);
    return { user, owner, name, number, url, found };
  };

  const act = (action: 'merge' | 'force-merge' | 'close' | 'reopen') =>
    server.post(
      `/repos/:owner/:name/pulls/:number/${action}`,
      { schema: { params: PullParams } },
      async (request, reply) => {
        const started = await startPost(request, reply);
        if (!started) return reply;
        const { user, owner, name, number, url, found } = started;
        // Merging and closing take a second step; reopening undoes a close and does not.
        if (action !== 'reopen' && !isConfirmed(request.body)) {
          const { title, consequence } = PULL_CONFIRMATIONS[action];
          return askToConfirm(pages, request, reply, {
            title,
            consequence: consequence(found),
            action: `${url}/${action}`,
            button: action === 'close' ? 'Close pull request' : 'Confirm merge',
            cancel: url,
          });
        }
        return formAction(
          pages,
          request,
          reply,
          async () => {
            if (action === 'merge' || action === 'force-merge') {
              await deps.services.pullMerges.merge(user, owner, name, number, {
                force: action === 'force-merge',
              });
              return { to: url, flash: 'Pull request merged.' };
            }
            await pulls.update(user, owner, name, number, {
              state: action === 'close' ? 'closed' : 'open',
            });
            return { to: url };
          },
          {
            passOn: ['not_found'],
            back: url,
            message: (error) =>
              error.code === 'conflict' && action !== 'close'
                ? `This pull request cannot be merged: ${error.message}. Resolve the conflicts on the head branch and push again.`
                : error.message,
          },
        );
      },
    );
  act('merge');
  act('force-merge');
  act('close');
  act('reopen');
}
