import type { FastifyReply, FastifyRequest } from 'fastify';

/** The content type Kiln answers ActivityPub documents with. */
export const ACTIVITY_JSON = 'application/activity+json; charset=utf-8';

const AP_TYPE =
  /application\/activity\+json|application\/ld\+json\s*;[^,]*profile="?https:\/\/www\.w3\.org\/ns\/activitystreams/i;

/**
 * Whether a request asks for ActivityPub rather than a page: it names `application/activity+json`
 * (or JSON-LD with the ActivityStreams profile) in `Accept` before any `text/html`. Browsers ask
 * for HTML first, so they keep getting pages.
 */
export function wantsActivityPub(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (!accept) return false;
  const match = AP_TYPE.exec(accept);
  if (!match) return false;
  const html = accept.search(/text\/html/i);
  return html < 0 || html > match.index;
}

/** Sends a JSON-LD document as ActivityPub. */
export function sendActivityJson(reply: FastifyReply, document: unknown): FastifyReply {
  return reply
    .header('vary', 'Accept')
    .header('cache-control', 'no-cache')
    .type(ACTIVITY_JSON)
    .send(JSON.stringify(document));
}
