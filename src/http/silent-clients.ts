import type { Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from '../lib/node-http.ts';

/**
 * Closes connections that a client leaves silent mid-request or mid-answer for the idle timeout
 * (`service.http.idle-timeout`). Node reports a socket silent for that long whoever caused the
 * silence; this decides whose it was.
 *
 * Invariant: a connection is closed for silence only when the client owes the next move: an
 * answer waits in the socket for the client to read it, or Kiln is ready to read more of a
 * request the client has not finished sending. Silence on Kiln's side (git checking a large push
 * after its last byte, git not yet reading what arrived, an answer still being made) only
 * re-arms the timer: git's own time limits bound those, and cutting them would fail a push or a
 * download that was doing nothing wrong. Between requests the keep-alive timeout governs.
 */
export function closeSilentClients(server: Server, idleTimeoutMs: number): void {
  const inFlight = new WeakMap<Socket, IncomingMessage>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const { socket } = request;
    inFlight.set(socket, request);
    response.once('close', () => {
      if (inFlight.get(socket) === request) inFlight.delete(socket);
    });
  });
  // Sockets whose last silence was Kiln's: when the move passes to the client (Kiln resumes
  // reading, say), the client's silence starts then, so it is given a whole timeout from there.
  const excused = new WeakSet<Socket>();
  server.on('timeout', (socket: Socket) => {
    const request = inFlight.get(socket);
    if (request !== undefined && !clientOwesTheNextMove(socket, request)) {
      excused.add(socket);
      socket.setTimeout(idleTimeoutMs);
    } else if (excused.delete(socket)) {
      socket.setTimeout(idleTimeoutMs);
    } else {
      socket.destroy();
    }
  });
}

/** Whether a connection's silence is the client's: see `closeSilentClients`. */
export function clientOwesTheNextMove(socket: Socket, request: IncomingMessage): boolean {
  // Bytes Node could not hand to the kernel: the client stopped reading.
  if (socket.writableLength > 0) return true;
  // A body still to come that Kiln would read now (not paused for its own consumer): the client
  // stopped sending.
  return !request.complete && !socket.isPaused();
}
