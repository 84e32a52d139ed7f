import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDomainError } from '../../domain/errors.ts';
import { GitError } from '../../git/git-error.ts';
import { errorCode } from '../../lib/thrown.ts';
import { statusOf } from './error-table.ts';

/** The realm git shows when it asks for credentials. */
export const GIT_REALM = 'Basic realm="Kiln"';

/**
 * The single translator of the smart HTTP edge: a status and one short line of text that git
 * prints to the user as is. 401 carries the Basic challenge so git sends credentials.
 */
export function gitErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (isDomainError(error)) {
    const status = statusOf(error.code, 'git');
    if (status === 401) reply.header('WWW-Authenticate', GIT_REALM);
    const message = status === 404 ? 'Repository not found.' : error.message;
    return reply.status(status).type('text/plain; charset=utf-8').send(`${message}\n`);
  }
  // git refusing what a client sent (an empty or garbled upload-pack or receive-pack request)
  // is the client's mistake; git's own words stay in the log.
  if (error instanceof GitError && request.method === 'POST' && !reply.sent) {
    request.log.info({ err: error }, 'git refused the request body');
    return reply
      .status(400)
      .type('text/plain; charset=utf-8')
      .send('git could not read this request.\n');
  }
  // The client left before its request body was whole: nobody is left to answer.
  if (errorCode(error) === 'ECONNRESET' && (request.raw.socket?.destroyed ?? true)) {
    request.log.info({ err: error }, 'client went away during the request');
    return reply.status(400).type('text/plain; charset=utf-8').send('Request cut short.\n');
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return reply.status(status).type('text/plain; charset=utf-8').send('Bad request.\n');
  }
  request.log.error({ err: error }, 'git transport failed');
  return reply.status(500).type('text/plain; charset=utf-8').send('Internal server error.\n');
}
