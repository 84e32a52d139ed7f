import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Federation } from '../../domain/federation/federation.ts';
import {
  hostOf,
  type InboxRefusal,
  type InboxVerifier,
  inboxVerifier,
  keyIdOf,
  verifySignature,
} from './verify-inbox.ts';

/**
 * Decides whether a GET of an actor or collection document may be served. Unsigned GETs are
 * served unless `required` (`service.federation.require-signed-fetch`); a GET signed by a key of
 * a blocked server is refused with 403 either way, before anything is fetched from it. When
 * signatures are required, the signature must verify (a key that fails is fetched afresh once,
 * as for the inbox), or the answer is 401 — the same for every path, so it tells nothing of
 * what exists.
 */
export async function checkSignedFetch(
  verifier: InboxVerifier,
  required: boolean,
  request: FastifyRequest,
): Promise<InboxRefusal | undefined> {
  const keyId = keyIdOf(request);
  const host = hostOf(keyId);
  if (host !== undefined && !verifier.hosts.permits(host)) {
    return { status: 403, message: 'this server does not federate with yours' };
  }
  if (!required) return undefined;
  if (!keyId) return { status: 401, message: 'this server serves signed requests only' };
  const key = await verifySignature(verifier, request, keyId, undefined);
  if (!key) return { status: 401, message: 'the signature does not verify' };
  return undefined;
}

/**
 * The same check as a hook: answers the refusal and returns true when the request was refused.
 */
export function signedFetchGuard(federation: Federation, required: boolean) {
  const verifier = inboxVerifier(federation);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    const refusal = await checkSignedFetch(verifier, required, request);
    if (!refusal) return false;
    reply.header('Cache-Control', 'no-store');
    await reply.status(refusal.status).type('text/plain').send(refusal.message);
    return true;
  };
}
