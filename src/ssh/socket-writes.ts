import type { Socket } from 'node:net';

/**
 * Makes `socket` send what is written to it in one tick as one segment train: Nagle off, and
 * every write of a tick corked into a single `writev` when the tick ends.
 *
 * Why: ssh2 writes each SSH packet in pieces (its length, its body, its MAC: three `write`s).
 * With Nagle's algorithm on, the last small piece waits for the peer's ACK of the first, which
 * a client delays by 40 ms; every round trip of the handshake and of git's negotiation paid that
 * (eight of them, a third of a second, before a clone's first byte). Turning Nagle off alone
 * would send each piece as a packet of its own; corking the tick sends a packet's pieces, and
 * the packets of one channel write, together.
 */
export function sendWritesPerTick(socket: Socket): void {
  socket.setNoDelay(true);
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(uncork);
    }
    return Reflect.apply(write, socket, args) as boolean;
  }) as Socket['write'];
}
