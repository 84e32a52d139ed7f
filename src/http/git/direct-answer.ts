import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Git answers that skip Node: for a clone, git writes the pack straight into the client's socket
 * instead of Node relaying tens of megabytes through a pipe, which on a two-core machine cost
 * Node about 2.5 ms of CPU per megabyte, time the clone itself then lacked.
 *
 * Node stops reading a socket it shares with a child process, so the whole request body is read
 * first (negotiation bodies are small; a larger one takes the relayed path), and the answer ends
 * by closing the connection, as its head announces.
 */

/** Request bodies up to this size are read whole before git starts writing into the socket. */
const DIRECT_BODY_LIMIT = 1024 * 1024;

export interface BufferedBody {
  /** The whole body was read: it fits the limit. */
  readonly complete: boolean;
  /** The body from its first byte: what was read, then (when incomplete) the rest as it comes. */
  readonly stream: Readable;
}

/** Reads the request body up to the limit, so that a small one is complete before git starts. */
export async function bufferBody(body: Readable, limit = DIRECT_BODY_LIMIT): Promise<BufferedBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  const iterator = body[Symbol.asyncIterator]();
  while (size <= limit) {
    const next = await iterator.next();
    if (next.done) return { complete: true, stream: Readable.from(chunks, { objectMode: false }) };
    chunks.push(next.value as Buffer);
    size += (next.value as Buffer).length;
  }
  async function* replay() {
    yield* chunks;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      yield next.value as Buffer;
    }
  }
  return { complete: false, stream: Readable.from(replay(), { objectMode: false }) };
}

/**
 * Whether git may write into this connection: a plain TCP socket with nothing of ours still
 * queued on it (a TLS connection needs Node to encrypt every byte).
 */
export function canWriteDirectly(socket: Socket): boolean {
  return !('encrypted' in socket) && socket.writable && socket.writableLength === 0;
}

/**
 * Answers outside Fastify's reply: `run` writes the head (a `200` that ends with the connection)
 * and has git write the body into the socket; the socket is then closed. A git failure leaves an
 * answer whose own framing shows it incomplete; it is logged here, since no error page can follow
 * a head already sent. It is logged and counted in the metrics as any other answer.
 */
export async function answerDirectly(
  request: FastifyRequest,
  reply: FastifyReply,
  headers: Readonly<Record<string, string>>,
  run: (socket: Socket, head: string) => Promise<void>,
): Promise<void> {
  const socket = request.raw.socket;
  reply.hijack();
  const head = [
    'HTTP/1.1 200 OK',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `Date: ${new Date().toUTCString()}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  try {
    await run(socket, head);
    request.server.countResponse(request, 200, reply.elapsedTime);
    request.log.info(
      { res: { statusCode: 200 }, responseTime: reply.elapsedTime },
      'request completed',
    );
  } catch (error) {
    request.server.countResponse(request, 200, reply.elapsedTime);
    request.log.warn({ err: error, responseTime: reply.elapsedTime }, 'git answer cut short');
  } finally {
    // What git wrote is in the kernel's send buffer and still goes out: closing sends it, then FIN.
    socket.destroy();
  }
}
