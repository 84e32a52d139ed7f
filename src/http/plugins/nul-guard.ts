import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Invalid, NotFound } from '../../domain/errors.ts';
import { isRecord } from '../../lib/narrow.ts';

const MAX_DEPTH = 64;

function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.some((item) => hasNul(item, depth + 1));
  if (!isRecord(value)) return false;
  const record = value;
  for (const key of Object.keys(record)) {
    if (key.includes('\0') || hasNul(record[key], depth + 1)) return true;
  }
  return false;
}

/**
 * No name, ref, query or text Kiln stores may contain NUL: git cannot hold it and PostgreSQL
 * refuses it, so it is refused here, once, before any lookup or write sees it (422). The hooks
 * here take Fastify's callback rather than returning a promise: they run on every request and
 * have nothing to wait for.
 */
export function refuseNul(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  done(nulIn(request));
}

function nulIn(request: FastifyRequest): Error | undefined {
  if (hasNul(request.params)) return new NotFound('not found');
  // The challenge stores nothing and sends any unsafe redirect (NUL included) to `/` itself.
  if (request.routeOptions.url === '/challenge') return undefined;
  if (hasNul(request.query) || hasNul(request.body)) {
    return new Invalid('input must not contain NUL characters');
  }
  return undefined;
}

/** The same for streamed routes (git transport), whose bodies are never parsed. */
export function refuseNulInAddress(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  // A name or ref in the path that holds NUL names nothing that can exist: 404.
  if (hasNul(request.params)) done(new NotFound('not found'));
  else if (hasNul(request.query)) done(new Invalid('input must not contain NUL characters'));
  else done();
}
