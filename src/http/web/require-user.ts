import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../domain/users/user.types.ts';
import { assertCsrf } from './csrf.ts';

/**
 * The signed-in person of a page request, or undefined after answering with a redirect to the
 * sign-in page that comes back here.
 */
export function signedInOrRedirect(request: FastifyRequest, reply: FastifyReply): User | undefined {
  if (request.viewer.kind === 'user') return request.viewer.user;
  const back = request.method === 'GET' && request.url.length < 2000 ? request.url : '/';
  void reply.redirect(`/login?redirect=${encodeURIComponent(back)}`, 303);
  return undefined;
}

/**
 * The signed-in person posting a form, whose CSRF token has been checked (a bad one throws), or
 * undefined after answering with a redirect to sign in. Who it is comes first: a signed-out
 * person is sent to sign in rather than told their token is wrong.
 */
export function signedInPoster(request: FastifyRequest, reply: FastifyReply): User | undefined {
  const user = signedInOrRedirect(request, reply);
  if (user) assertCsrf(request);
  return user;
}
