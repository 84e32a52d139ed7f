import { createHmac } from 'node:crypto';
import type { HookType } from './webhook.types.ts';

/** A request to one receiver, fully built and signed. */
export type OutgoingRequest = {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
};

/** What a request is built from: the hook's settings and one delivery. */
export type RequestParts = {
  readonly type: HookType;
  readonly url: string;
  readonly httpMethod: 'POST' | 'GET';
  readonly contentType: 'json' | 'form';
  readonly secret: string;
  readonly authorization: string;
  readonly deliveryId: string;
  readonly event: string;
  readonly eventType: string;
  /** The payload as stored: JSON text, already in the receiver's format. */
  readonly payload: string;
  readonly userAgent: string;
};

/** Hex HMAC of `body` under `secret`. */
export function hmacHex(algorithm: 'sha1' | 'sha256', secret: string, body: string): string {
  return createHmac(algorithm, secret).update(body, 'utf8').digest('hex');
}

/**
 * Builds the request Gitea would send. The signature covers the exact body sent (the form body
 * for `form` hooks) and is given under every name receivers look for: Gitea's and Gogs' bare hex
 * SHA-256, Forgejo's, and GitHub's `sha256=`/`sha1=` forms. Matrix takes a PUT with a
 * transaction id in the path, as Gitea sends it; a GET hook carries the payload in the query.
 */
export function buildHookRequest(parts: RequestParts): OutgoingRequest {
  let url = parts.url;
  let method: string = parts.httpMethod;
  let body = parts.payload;
  let contentType = 'application/json';
  if (parts.type === 'matrix') {
    method = 'PUT';
    url = `${parts.url.replace(/\/+$/, '')}/${encodeURIComponent(parts.deliveryId)}`;
  } else if ((parts.type === 'gitea' || parts.type === 'forgejo') && parts.contentType === 'form') {
    body = new URLSearchParams({ payload: parts.payload }).toString();
    contentType = 'application/x-www-form-urlencoded';
  }
  if (method === 'GET') {
    const target = new URL(url);
    target.searchParams.set('payload', parts.payload);
    url = target.href;
    body = '';
  }
  const sha256 = parts.secret === '' ? '' : hmacHex('sha256', parts.secret, body);
  const sha1 = parts.secret === '' ? '' : hmacHex('sha1', parts.secret, body);
  const headers: Record<string, string> = {
    'user-agent': parts.userAgent,
    'content-type': contentType,
    'x-gitea-delivery': parts.deliveryId,
    'x-gitea-event': parts.event,
    'x-gitea-event-type': parts.eventType,
    'x-gitea-signature': sha256,
    'x-forgejo-delivery': parts.deliveryId,
    'x-forgejo-event': parts.event,
    'x-forgejo-event-type': parts.eventType,
    'x-forgejo-signature': sha256,
    'x-gogs-delivery': parts.deliveryId,
    'x-gogs-event': parts.event,
    'x-gogs-event-type': parts.eventType,
    'x-gogs-signature': sha256,
    'x-github-delivery': parts.deliveryId,
    'x-github-event': parts.event,
    'x-github-event-type': parts.eventType,
    'x-hub-signature': sha1 === '' ? '' : `sha1=${sha1}`,
    'x-hub-signature-256': sha256 === '' ? '' : `sha256=${sha256}`,
  };
  if (parts.authorization !== '') headers.authorization = parts.authorization;
  return { url, method, headers, body };
}

/** The request headers as recorded: the authorization header is never stored. */
export function recordableHeaders(
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  const copy = { ...headers };
  if (copy.authorization !== undefined) copy.authorization = '(hidden)';
  return copy;
}
