import type { FastifyReply, FastifyRequest } from 'fastify';
import { type DomainError, isDomainError } from '../../domain/errors.ts';
import { pageStatusOf } from '../errors/web-errors.ts';
import { setFlash } from './flash.ts';
import type { Pages } from './page.ts';

/** Where a form goes when its action succeeded: a redirect (303), with a message when given. */
export type FormDone = { readonly to: string; readonly flash?: string };

/**
 * How a form answers a domain error of its own action. Errors it does not answer (not domain
 * errors, kinds outside `answers` or inside `passOn`) reach the web error handler's error page,
 * which is how a missing repository stays a missing page.
 */
export type FormFailure = {
  /** The kinds the form answers; every kind when absent. */
  readonly answers?: readonly DomainError['code'][];
  /** Kinds left to the error page (the rest are answered). */
  readonly passOn?: readonly DomainError['code'][];
  /** The message shown; the error's own when absent. */
  readonly message?: (error: DomainError) => string;
} & (
  | {
      /** Flash the message and redirect (303) there. */
      readonly back: string | (() => Promise<string>);
    }
  | {
      /** Show the form again, with the message, at `status` (see `formStatusOf`). */
      readonly render: (
        message: string,
        status: number,
        error: DomainError,
      ) => FastifyReply | Promise<FastifyReply>;
    }
);

/**
 * The status of a form shown again after a domain error: the page status of the error, except
 * that something missing which the form named (a tag, a target, an organisation) is bad input,
 * 422, not a missing page. A form whose page itself may be missing passes `not_found` on first.
 */
export function formStatusOf(error: DomainError): number {
  const status = pageStatusOf(error);
  return status === 404 ? 422 : status;
}

/**
 * Runs a page form's action the one way every form does: on success, a flash message (when the
 * action gives one) and a redirect (303) so a reload does not post again; on a domain error the
 * form answers, the message as a flash on the redirect back, or the form again with the message;
 * anything else goes on to the error page. An action that has answered the request itself (a
 * page showing a new secret once) returns the reply.
 *
 * Without `failure`, every error goes to the error page.
 */
export async function formAction(
  pages: Pages,
  request: FastifyRequest,
  reply: FastifyReply,
  action: () => Promise<FormDone | FastifyReply>,
  failure?: FormFailure,
): Promise<FastifyReply> {
  let done: FormDone | FastifyReply;
  try {
    done = await action();
  } catch (error) {
    if (!failure || !answers(failure, error)) throw error;
    const message = failure.message ? failure.message(error) : error.message;
    if ('render' in failure) return failure.render(message, formStatusOf(error), error);
    const to = typeof failure.back === 'string' ? failure.back : await failure.back();
    setFlash(reply, { kind: 'error', message }, pages.secure(request));
    return reply.redirect(to, 303);
  }
  if (!('to' in done)) return done;
  const { to, flash } = done;
  if (flash !== undefined)
    setFlash(reply, { kind: 'success', message: flash }, pages.secure(request));
  return reply.redirect(to, 303);
}

function answers(failure: FormFailure, error: unknown): error is DomainError {
  if (!isDomainError(error)) return false;
  if (failure.passOn?.includes(error.code)) return false;
  return failure.answers === undefined || failure.answers.includes(error.code);
}
