import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDomainError } from '../../domain/errors.ts';
import { statusOf } from '../errors/error-table.ts';

/**
 * The single translator of the federation routes (actors, inboxes, collections, WebFinger):
 * remote servers read the status, so the body is one plain line. A private or missing actor is
 * the same 404 with the same words.
 */
export function federationErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (isDomainError(error)) {
    const status = statusOf(error.code, 'federation');
    const message = status === 404 ? 'not found' : error.message;
    return reply.status(status).type('text/plain; charset=utf-8').send(message);
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return reply.status(status).type('text/plain; charset=utf-8').send(error.message);
  }
  request.log.error({ err: error }, 'federation request failed');
  return reply.status(500).type('text/plain; charset=utf-8').send('internal server error');
}
