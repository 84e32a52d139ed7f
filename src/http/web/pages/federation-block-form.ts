import type { FastifyReply, FastifyRequest } from 'fastify';
import { formAction } from '../form-action.ts';
import type { Pages } from '../page.ts';

/** Which way a block form goes. */
export type BlockAction = 'block' | 'unblock';

/**
 * Answers a form that blocks or unblocks a remote actor or server, the one way the site-wide and
 * the repository pages do: `change` does it and names what it touched; the answer is a redirect
 * to `back` saying so, or back with the message when the target is not one (bad or unknown).
 * Who may post is checked by the caller before this runs.
 */
export function answerBlockForm(
  pages: Pages,
  request: FastifyRequest,
  reply: FastifyReply,
  form: { readonly action: BlockAction; readonly back: string },
  change: () => Promise<string>,
): Promise<FastifyReply> {
  const { action, back } = form;
  return formAction(
    pages,
    request,
    reply,
    async () => ({
      to: back,
      flash: `${action === 'block' ? 'Blocked' : 'Unblocked'} ${await change()}.`,
    }),
    { answers: ['invalid', 'not_found'], back },
  );
}
