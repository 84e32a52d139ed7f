import type { FastifyReply, FastifyRequest } from 'fastify';
import { field } from './forms.ts';
import type { Pages } from './page.ts';
import { CONFIRM_FIELD, type Confirmation, confirmationPage } from './views/confirmation.ts';

export { CONFIRM_FIELD, type Confirmation };

/**
 * Destructive forms take two steps, and the server enforces the second: an action runs only
 * when its form carries the confirmation field (`confirm=yes`, or the typed name where one is
 * asked for). A post without it answers with a page that says what will happen and holds the
 * confirming form, so every such action works without JavaScript; with it, a `data-confirm`
 * dialog may add the field on the first step, but the server never trusts the dialog alone.
 */
export function isConfirmed(body: unknown, expected = 'yes'): boolean {
  const given = field(body, CONFIRM_FIELD, 1000).trim();
  return given !== '' && given === expected;
}

/** Whether the form named something to confirm at all (a typed name that may be wrong). */
export function triedToConfirm(body: unknown): boolean {
  return field(body, CONFIRM_FIELD, 1000).trim() !== '';
}

/**
 * Answers with the confirmation page: 200 for the first step, 422 when the typed confirmation
 * did not match. The page is never cached, as it carries a CSRF token.
 */
export function askToConfirm(
  pages: Pages,
  request: FastifyRequest,
  reply: FastifyReply,
  confirmation: Confirmation,
): FastifyReply {
  reply.header('Cache-Control', 'no-store');
  return pages.send(request, reply, {
    status: confirmation.error ? 422 : 200,
    title: confirmation.title,
    body: (context) => confirmationPage(context, confirmation),
  });
}

/**
 * The confirmation page when the form was not confirmed, else undefined and the action goes on.
 * Call it only after the caller's right to act was checked, so that outsiders keep their 404
 * and readers their 403 rather than a page asking them to confirm.
 */
export function unlessConfirmed(
  pages: Pages,
  request: FastifyRequest,
  reply: FastifyReply,
  confirmation: () => Confirmation,
): FastifyReply | undefined {
  return isConfirmed(request.body)
    ? undefined
    : askToConfirm(pages, request, reply, confirmation());
}
