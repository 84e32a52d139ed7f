import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cacheControlFor } from '../plugins/private-answers.ts';

/**
 * Git answers that skip Node: for a clone, git writes the pack straight into the client's socket
 * instead of Node relaying tens of megabytes through a pipe, which on a two-core machine cost
 * Node about 2.5 ms of CPU per megabyte, time the clone itself then lacked.
 *
 * Node stops reading a socket it shares with a child process, so the whole request body is read
 * first (negotiation bodies are small; a larger one takes the relayed path), and the answer ends
 * by closing the connection, as its head announces.
 */

/** How long a client may take to read the rest of an answer before its connection goes. */
const LINGER_MS = 30_000;

/** Request bodies up to this size are read whole before git starts writing into the socket. */
const DIRECT_BODY_LIMIT = 1024 * 1024;

export interface BufferedBody {
  /** The whole body, when it fits the limit. */
  readonly whole: Buffer | undefined;
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
    if (next.done) {
      const whole = Buffer.concat(chunks);
      return { whole, stream: Readable.from([whole], { objectMode: false }) };
    }
    chunks.push(next.value as Buffer);
    size += (next.value as Buffer).length;
  }
  async function* replay() {
    yield* chunks;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      yield next.value as Buffer;
    }
  }
  return { whole: undefined, stream: Readable.from(replay(), { objectMode: false }) };
}

/**
 * Whether git may write this answer into its connection: a plain TCP socket (a TLS connection
 * needs Node to encrypt every byte) that this answer owns now, with nothing of ours queued on it.
 * A pipelined request's answer waits its turn (Node gives it the socket later), so it is relayed.
 */
export function canWriteDirectly(request: FastifyRequest, reply: FastifyReply): boolean {
  const socket = request.raw.socket;
  return (
    reply.raw.socket === socket &&
    !('encrypted' in socket) &&
    socket.writable &&
    socket.writableLength === 0
  );
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
  // Git's writes into the socket are not Node's: to Node the connection looks silent, with
  // nothing of its own queued, for as long as a clone takes, which the idle timeout counts as the
  // server's silence (silent-clients.ts). A client that stops reading holds git, blocked on the
  // full socket, not Node.
  // Past Fastify's onSend hooks: the private-answer rule is applied here instead.
  const cacheControl = cacheControlFor(request.viewer, headers['Cache-Control']);
  const all = cacheControl === undefined ? headers : { ...headers, 'Cache-Control': cacheControl };
  const head = [
    'HTTP/1.1 200 OK',
    ...Object.entries(all).map(([name, value]) => `${name}: ${value}`),
    `Date: ${new Date().toUTCString()}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  try {
    await run(socket, head);
    request.server.countResponse(request, 200, reply.elapsedTime);
    request.log.info(
      { req: request, res: { statusCode: 200 }, responseTime: reply.elapsedTime },
      'request completed',
    );
    closeGracefully(socket);
  } catch (error) {
    request.server.countResponse(request, 200, reply.elapsedTime);
    request.log.warn(
      { req: request, err: error, responseTime: reply.elapsedTime },
      'git answer cut short',
    );
    // Cut short anyway: a reset tells the client at once.
    socket.destroy();
  }
}

/**
 * Ends the connection once what git wrote has gone out. Anything more the client sends (a stray
 * line break, a pipelined request) is read and dropped: closing a socket with unread input makes
 * the kernel reset the connection and discard what is still queued for the client.
 */
function closeGracefully(socket: Socket): void {
  socket.on('data', () => {});
  socket.resume();
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
