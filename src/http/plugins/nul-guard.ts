import type { FastifyRequest } from 'fastify';
import { Invalid, NotFound } from '../../domain/errors.ts';

const MAX_DEPTH = 64;

function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((item) => hasNul(item, depth + 1));
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\0') || hasNul(item, depth + 1)) return true;
  }
  return false;
}

/**
 * No name, ref, query or text Kiln stores may contain NUL: git cannot hold it and PostgreSQL
 * refuses it, so it is refused here, once, before any lookup or write sees it (422).
 */
export async function refuseNul(request: FastifyRequest): Promise<void> {
  refuseNulInPath(request);
  // The challenge stores nothing and sends any unsafe redirect (NUL included) to `/` itself.
  if (request.routeOptions.url === '/challenge') return;
  if (hasNul(request.query) || hasNul(request.body)) {
    throw new Invalid('input must not contain NUL characters');
  }
}

/** A name or ref in the path that holds NUL names nothing that can exist: 404. */
function refuseNulInPath(request: FastifyRequest): void {
  if (hasNul(request.params)) throw new NotFound('not found');
}

/** The same for streamed routes (git transport), whose bodies are never parsed. */
export async function refuseNulInAddress(request: FastifyRequest): Promise<void> {
  refuseNulInPath(request);
  if (hasNul(request.query)) {
    throw new Invalid('input must not contain NUL characters');
  }
}
