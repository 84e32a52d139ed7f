import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * One line per request at `info`, written when it completes: method, path, request id, status
 * and time, an access log. Fastify's default writes an "incoming request" line first, which
 * doubles the log and its writes (a system call each, the log being synchronous) for no more
 * than the completed line says; that line is kept at `debug`, for following a request that
 * never completes.
 */
export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
