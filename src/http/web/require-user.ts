import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../domain/users/user.types.ts';

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
