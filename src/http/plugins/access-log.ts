import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * One line per request at `info`, written when it completes: method, path, request id, status
 * and time, an access log. Fastify's default writes an "incoming request" line first, which
 * doubles the log and its writes (a system call each, the log being synchronous) for no more
 * than the completed line says; that line is kept at `debug`, for following a request that
 * never completes. A streamed answer cut short (a download the client abandoned) gets no
 * completed line from Fastify, so its error line is the access line, naming the request too.
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

  override streamError(
    error: Error & { code?: string },
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    // The connection closed before the whole answer went out: the client left (a cancelled
    // download), which is not the server's failure.
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE') reply.log.info(line, 'request aborted');
    else reply.log.warn({ ...line, err: error }, 'answer failed after its headers were sent');
  }
}
