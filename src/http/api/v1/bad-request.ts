/**
 * A request REST cannot act on for a reason Gitea answers 400, not 422 (an archive asked for in a
 * format that does not exist). The domain's errors have no such kind, so this carries the status
 * as Fastify's own errors do, and the one REST error handler answers it in Gitea's shape.
 */
export class BadRequest extends Error {
  readonly statusCode = 400;
}
