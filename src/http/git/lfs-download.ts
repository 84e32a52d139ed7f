import type { FastifyReply, FastifyRequest } from 'fastify';
import { cacheControlFor } from '../plugins/private-answers.ts';

/**
 * Writes a stored object's answer (an LFS object, an artifact's zip) past Fastify, with the head `reply` was given: `copy` hands the
 * bytes over in two reused buffers and each chunk's write must end before its buffer is filled
 * again, which a stream given to Fastify cannot tell it. (A stream allocates a buffer per read;
 * 200 MB of them set off a full garbage collection of the server's heap every few tens of
 * megabytes, and that, not the disk or the network, bounded a download.) The answer is logged
 * and counted as any other.
 */
export async function sendObject(
  request: FastifyRequest,
  reply: FastifyReply,
  copy: (sink: (bytes: Buffer) => Promise<void>) => Promise<void>,
): Promise<void> {
  const status = reply.statusCode;
  const headers: Record<string, string | number | string[] | undefined> = {
    ...reply.getHeaders(),
  };
  // Past Fastify's onSend hooks: the private-answer rule is applied here instead.
  const current = headers['cache-control'];
  const cacheControl = cacheControlFor(
    request.viewer,
    typeof current === 'string' ? current : undefined,
  );
  if (cacheControl !== undefined) headers['cache-control'] = cacheControl;
  reply.hijack();
  const response = reply.raw;
  response.writeHead(status, headers);
  const sink = (bytes: Buffer) =>
    new Promise<void>((resolve, reject) => {
      response.write(bytes, (error) => (error ? reject(error) : resolve()));
    });
  try {
    await copy(sink);
    response.end();
    request.log.info(
      { req: request, res: { statusCode: status }, responseTime: reply.elapsedTime },
      'request completed',
    );
  } catch (error) {
    request.log.info({ req: request, err: error }, 'download cut short');
    // The length announced will not be met: a reset tells the client at once.
    response.destroy();
  } finally {
    request.server.countResponse(request, status, reply.elapsedTime);
  }
}
