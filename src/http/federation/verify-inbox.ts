import type { verifyRequest } from '@fedify/fedify';
import type { FastifyRequest } from 'fastify';
import type { Federation } from '../../domain/federation/federation.ts';
import { fedify } from '../../domain/federation/fedify.ts';
import type { HostPolicy } from '../../domain/federation/host-policy.ts';
import { idOf } from '../../domain/federation/remote-actors.ts';
import type { RemoteDocuments } from '../../domain/federation/remote-documents.ts';
import { isRecord } from '../../lib/narrow.ts';

/** Why an inbox POST is refused, and with which status. */
export type InboxRefusal = { readonly status: 400 | 401 | 403; readonly message: string };

export type VerifiedPost = {
  readonly sender: string;
  readonly activity: Record<string, unknown>;
};

/** What the inbox needs of the federation domain to check a POST. */
export type InboxVerifier = {
  readonly documents: RemoteDocuments;
  readonly hosts: HostPolicy;
  /** The external base URL's scheme (`https:`), for the URL the signature was made over. */
  readonly scheme: string;
};

/** The verifier for `federation`'s edge. */
export function inboxVerifier(federation: Federation): InboxVerifier {
  return {
    documents: federation.documents,
    hosts: federation.hosts,
    scheme: new URL(federation.urls.base).protocol,
  };
}

export function hostOf(url: string | undefined): string | undefined {
  return url && URL.canParse(url) ? new URL(url).host : undefined;
}

/** `keyId="…"` of a draft-cavage `Signature` header, or `keyid="…"` of RFC 9421's input. */
export function keyIdOf(request: FastifyRequest): string | undefined {
  const header = `${request.headers.signature ?? ''} ${request.headers['signature-input'] ?? ''}`;
  return /keyid="([^"]+)"/i.exec(header)?.[1];
}

/**
 * Checks one inbox POST: the body is one JSON object; neither the claimed actor's server nor
 * the signing key's is blocked (403, before anything is fetched from it); the HTTP signature
 * verifies, over the body digest computed on the exact bytes received (401 otherwise); and the
 * key belongs to the actor the activity names (401). A signature that fails against a cached
 * key is tried once more with the key fetched afresh (at most once a minute per actor), so a
 * peer that rotated its key is believed as soon as it publishes the new one.
 */
export async function verifyInboxPost(
  verifier: InboxVerifier,
  request: FastifyRequest,
  body: Buffer,
): Promise<VerifiedPost | InboxRefusal> {
  let activity: unknown;
  try {
    activity = JSON.parse(body.toString('utf8'));
  } catch {
    return { status: 400, message: 'the body is not JSON' };
  }
  if (!isRecord(activity)) return { status: 400, message: 'the body is not an activity' };
  const claimed = idOf(activity.actor);
  const keyId = keyIdOf(request);
  for (const host of [hostOf(claimed), hostOf(keyId)]) {
    if (host !== undefined && !verifier.hosts.permits(host)) {
      return { status: 403, message: 'this server does not federate with yours' };
    }
  }
  if (!claimed || !keyId) return { status: 401, message: 'the request is not signed' };
  // RFC 9421 lets a signer leave the body out of what it signs; Kiln does not accept that.
  const input = request.headers['signature-input'];
  if (typeof input === 'string' && !/"content-digest"/i.test(input)) {
    return { status: 401, message: 'the signature must cover content-digest' };
  }
  const key = await verifySignature(verifier, request, keyId, body);
  if (!key) return { status: 401, message: 'the signature does not verify' };
  if (key.ownerId?.href !== claimed) {
    return { status: 401, message: 'the key does not belong to the actor' };
  }
  return { sender: claimed, activity };
}

/**
 * The key that signed `request`, or null. A signature that fails against a cached key is tried
 * once more with the key fetched afresh (at most once a minute per actor), so a peer that
 * rotated its key is believed as soon as it publishes the new one.
 */
export async function verifySignature(
  verifier: InboxVerifier,
  request: FastifyRequest,
  keyId: string,
  body: Buffer | undefined,
): ReturnType<typeof verifyRequest> {
  const { verifyRequest } = await fedify();
  const verify = () =>
    verifyRequest(toFetchRequest(verifier.scheme, request, body), {
      documentLoader: verifier.documents.loader,
      contextLoader: verifier.documents.contextLoader,
    }).catch(() => null);
  const key = await verify();
  if (key || !(await verifier.documents.forget(keyId))) return key;
  return verify();
}

/**
 * The request as Fedify reads it: the Host the client used, the exact bytes it sent (none for a
 * GET).
 */
export function toFetchRequest(
  scheme: string,
  request: FastifyRequest,
  body: Buffer | undefined,
): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return new Request(`${scheme}//${request.headers.host ?? 'localhost'}${request.url}`, {
    method: request.method,
    headers,
    ...(body === undefined ? {} : { body: new Uint8Array(body) }),
  });
}
