import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** How long a client may take to read an answer before its half-sent request's socket goes. */
const LINGER_MS = 5_000;

/**
 * Git POST bodies are streamed into git, never parsed, so an answer can be complete while part
 * of the body was never read: a request refused before git starts (401, 403, 404, 415), or git
 * stopping early (a broken pack, a client that went away). Such a connection cannot carry
 * another request, and once paused nobody would even notice the client leaving: it would stay
 * open until the request timeout and hold up a graceful shutdown that long.
 *
 * - Refusals say `Connection: close`, so Node closes the connection after the answer and the
 *   client knows not to reuse it.
 * - A body left unread after a streamed answer (the stream that fed git was torn down) gets our
 *   side closed once the answer is out, and the socket dropped after a short linger, so the
 *   client can still read the answer first.
 */
export function registerUnreadBodyHandling(server: FastifyInstance): void {
  // Node detaches the socket from an aborted request, so keep hold of it from the start.
  const sockets = new WeakMap<FastifyRequest, Socket>();
  server.addHook('onRequest', async (request) => {
    sockets.set(request, request.raw.socket);
  });
  server.addHook('onSend', async (request, reply) => {
    if (request.method === 'POST' && reply.statusCode >= 400 && !request.raw.complete) {
      reply.header('Connection', 'close');
    }
  });
  server.addHook('onResponse', async (request) => {
    const socket = sockets.get(request);
    if (request.method !== 'POST' || !socket) return;
    const body = request.raw;
    const check = () => {
      if (body.complete || socket.destroyed) return;
      socket.end();
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    };
    // Still being read (git's input is draining): decide once the body stream is done with.
    if (body.destroyed || body.readableEnded) check();
    else body.once('close', check);
  });
}
