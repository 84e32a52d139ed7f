import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Invalid, isDomainError } from '../../domain/errors.ts';
import { statusOf } from '../errors/error-table.ts';
import { ARTIFACT_CHUNK_BYTES } from './body-limits.ts';

/** The bearer token of a request, or an empty string. */
export function bearerOf(request: FastifyRequest): string {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1] ?? '';
}

/** A positive decimal id from a URL segment. @throws Invalid */
export function idParam(value: string, what: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(value)) throw new Invalid(`${what} must be a positive number`);
  return Number(value);
}

/** A `Content-Range: bytes start-end/total` of at most `ARTIFACT_CHUNK_BYTES`. @throws Invalid */
export function parseContentRange(header: string | undefined): {
  start: number;
  end: number;
  total: number;
} {
  const match = /^bytes (\d{1,15})-(\d{1,15})\/(\d{1,15})$/.exec(header ?? '');
  if (!match) throw new Invalid('Content-Range must be "bytes start-end/total"');
  const [start, end, total] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (start > end || end >= total) throw new Invalid('Content-Range is out of order');
  if (end - start + 1 > ARTIFACT_CHUNK_BYTES) {
    throw new Invalid(`a chunk may not pass ${ARTIFACT_CHUNK_BYTES} bytes`);
  }
  return { start, end, total };
}

/**
 * The answer to any failure of the artifact protocols: the domain error's status with a
 * `{message}` a person reads in the action's log; framework errors (a JSON body that does not
 * parse, one too large) keep their 4xx; anything else is a 500 without its details. A request
 * whose body was not read closes its connection, so the unread bytes cannot be taken for the
 * next request.
 */
export function sendArtifactError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const { status, message } = artifactFailure(error, request, reply);
  return reply.status(status).send({ message });
}

/** The status and message of a failure (see `sendArtifactError`), for edges with other bodies. */
export function artifactFailure(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): { status: number; message: string } {
  const status = isDomainError(error)
    ? statusOf(error.code, 'api')
    : error.statusCode !== undefined && error.statusCode < 500
      ? error.statusCode
      : 500;
  if (status === 500) request.log.error({ err: error }, 'artifact request failed');
  if (!request.raw.readableEnded) reply.header('connection', 'close');
  return { status, message: status === 500 ? 'internal server error' : error.message };
}
