import { Invalid, Unauthenticated } from '../errors.ts';
import type { User } from '../users/user.types.ts';
import type { PullInContext } from './pull.service.ts';
import type { ReviewState } from './pull-review.types.ts';

const MAX_BODY_BYTES = 65_536;

/** A review's summary or a dismissal's message, at most 64 KiB. */
export function checkBody(body: string): string {
  if (Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES)
    throw new Invalid('body must be at most 64 KiB');
  return body;
}

/**
 * Gitea's rules for a verdict: nobody approves or rejects their own pull request, a request
 * for changes says why, and a comment review says something (a body or a line comment).
 */
export function checkVerdict(
  context: PullInContext,
  actor: User | undefined,
  event: ReviewState,
  body: string,
  hasLines: boolean,
): void {
  if (!actor) throw new Unauthenticated('token is required');
  const own = context.pull.authorId === actor.id;
  if (event === 'APPROVED' && own) throw new Invalid('approve your own pull is not allowed');
  if (event === 'REQUEST_CHANGES') {
    if (own) throw new Invalid('reject your own pull is not allowed');
    if (body.trim() === '') throw new Invalid('review event REQUEST_CHANGES requires a body');
  }
  if (event === 'COMMENT' && body.trim() === '' && !hasLines) {
    throw new Invalid('review event COMMENT requires a body or a comment');
  }
  if (event !== 'COMMENT' && context.pull.state !== 'open') {
    throw new Invalid('a closed pull request takes no approval or request for changes');
  }
}
