import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import { isDomainError } from '../../domain/errors.ts';
import { type BaseUrlConfig, baseUrlOf } from '../base-url.ts';
import { statusOf } from './error-table.ts';
import { withRetryAfter } from './retry-after.ts';

/** Fastify's own errors that are the client's fault, with the status Gitea answers. */
function frameworkStatus(error: FastifyError): number | undefined {
  if (error.validation) return 422;
  if (
    error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
  ) {
    return 400;
  }
  if (error instanceof SyntaxError) return 400;
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) return status;
  return undefined;
}

export type ApiErrorBody = { message: string; url: string; errors?: string[] };

/**
 * The single REST error translator: domain errors and client mistakes become Gitea's
 * `{message, url}` with Gitea's status; anything else is a logged 500 with a generic message.
 */
export function apiErrorHandler(config: Config) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const url = `${baseUrlOf(request, config)}/api/swagger`;
    if (isDomainError(error)) {
      const status = statusOf(error.code, 'api');
      if (status === 401) reply.header('WWW-Authenticate', 'Basic realm="Kiln"');
      const body: ApiErrorBody = { message: error.message, url };
      if (status === 404) body.errors = [error.message];
      return withRetryAfter(reply, error).status(status).send(body);
    }
    const status = frameworkStatus(error);
    if (status !== undefined) {
      const message = error.validation ? validationMessage(error) : error.message;
      return reply.status(status).send({ message, url } satisfies ApiErrorBody);
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ message: 'internal server error', url } satisfies ApiErrorBody);
  };
}

function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return 'invalid input';
  const where = first.instancePath
    ? first.instancePath.slice(1).replaceAll('/', '.')
    : error.validationContext;
  return `${where ? `${where}: ` : ''}${first.message ?? 'invalid value'}`;
}

export function apiNotFoundHandler(config: BaseUrlConfig) {
  return (request: FastifyRequest, reply: FastifyReply) =>
    reply.status(404).send({
      message: 'not found',
      url: `${baseUrlOf(request, config)}/api/swagger`,
      errors: [`no route for ${request.method} ${request.url.split('?')[0]}`.slice(0, 300)],
    } satisfies ApiErrorBody);
}

/**
 * Errors Fastify raises before any route is chosen (a path with a broken percent-escape): REST
 * paths get Gitea's `{message, url}`, everything else the plain text the pages use.
 */
export function frameworkErrorHandler(config: Config) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const status =
      error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 400;
    if (request.url.startsWith('/api/')) {
      return reply.status(status).send({
        message: 'invalid request path',
        url: `${baseUrlOf(request, config)}/api/swagger`,
      } satisfies ApiErrorBody);
    }
    return reply.status(status).type('text/plain').send('bad request');
  };
}
