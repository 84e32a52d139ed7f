import type { FastifyReply } from 'fastify';
import type { DomainError } from '../../domain/errors.ts';

/**
 * `Retry-After` for an `Unavailable` or `TooManyAttempts` that says when to come back (`details.retryAfterSeconds`,
 * whole seconds): every edge that maps domain errors passes its answer through here, so a busy
 * answer tells clients when to retry whichever surface they used.
 */
export function withRetryAfter(reply: FastifyReply, error: DomainError): FastifyReply {
  const seconds = error.details?.retryAfterSeconds;
  const waits = error.code === 'unavailable' || error.code === 'rate_limited';
  if (waits && typeof seconds === 'number' && seconds >= 1) {
    reply.header('Retry-After', String(Math.ceil(seconds)));
  }
  return reply;
}
