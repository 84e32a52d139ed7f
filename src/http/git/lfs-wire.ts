import type { Readable } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Invalid, isDomainError, TooLarge } from '../../domain/errors.ts';
import type { LfsLock } from '../../domain/lfs/lfs.types.ts';
import { statusOf } from '../errors/error-table.ts';
import { GIT_REALM } from '../errors/git-errors.ts';

/** The media type of every Git LFS API request and answer. */
export const LFS_JSON = 'application/vnd.git-lfs+json';

/** Largest JSON body of an LFS request (a batch of 10,000 objects fits in about 1.2 MB). */
const MAX_JSON_BYTES = 2 * 1024 * 1024;

/**
 * Reads an LFS request's JSON body, at most MAX_JSON_BYTES of it: the plugin leaves bodies
 * unparsed so that object uploads stream, and JSON requests are read here.
 */
export async function readLfsJson(body: Readable | undefined): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (body) {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > MAX_JSON_BYTES) throw new TooLarge('The request body is too large.');
      chunks.push(chunk as Buffer);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new Invalid('The request body is not JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Invalid('The request body is not a JSON object.');
  }
  return value as Record<string, unknown>;
}

/** A lock as the LFS API writes it. */
export function lockJson(lock: LfsLock) {
  return {
    id: String(lock.id),
    path: lock.path,
    locked_at: lock.lockedAt.toISOString(),
    owner: { name: lock.ownerHandle },
  };
}

/**
 * The LFS edge's one error translator: `{"message": …}` in the LFS media type, which git-lfs
 * prints. A 401 carries `LFS-Authenticate` (and git's own challenge), so git-lfs asks its
 * credential helpers and tries again, as git does for the repository itself.
 */
export function lfsErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  let status: number;
  let message: string;
  if (isDomainError(error)) {
    status = statusOf(error.code, 'api');
    message = status === 404 ? 'Repository or object not found.' : error.message;
  } else if (
    (error as NodeJS.ErrnoException).code === 'ECONNRESET' ||
    (error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE'
  ) {
    request.log.info({ err: error }, 'client went away during the request');
    status = 400;
    message = 'Request cut short.';
  } else if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    status = error.statusCode;
    message = 'Bad request.';
  } else {
    request.log.error({ err: error }, 'LFS request failed');
    status = 500;
    message = 'Internal server error.';
  }
  if (status === 401) {
    reply.header('LFS-Authenticate', GIT_REALM).header('WWW-Authenticate', GIT_REALM);
  }
  if (reply.sent) return;
  return reply.status(status).type(LFS_JSON).send({ message });
}
