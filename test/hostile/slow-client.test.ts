/**
 * A client that sends its request headers one byte per second is cut off once the headers
 * timeout (`SERVICE_HTTP_HEADERS_TIMEOUT`, 1 s here) has passed, instead of holding a
 * connection open for as long as it likes; the server keeps answering everybody else meanwhile.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type HostileWorld, useHostileWorld } from './support.ts';

let world: HostileWorld;
useHostileWorld(
  (started) => {
    world = started;
  },
  { SERVICE_HTTP_HEADERS_TIMEOUT: '1s' },
);

/** Sends `text` one byte a second; resolves with how long the server let it go on, in ms. */
function trickle(text: string, giveUpMs: number): Promise<{ ms: number; answer: string }> {
  const { port } = new URL(world.kiln.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    const started = Date.now();
    let answer = '';
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < text.length && !socket.destroyed) socket.write(text[sent++] ?? '');
    }, 1000);
    const finish = () => {
      clearInterval(timer);
      clearTimeout(limit);
      socket.destroy();
      resolve({ ms: Date.now() - started, answer });
    };
    const limit = setTimeout(finish, giveUpMs);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

describe('slow clients', () => {
  it('cuts off a client sending its headers one byte per second', async () => {
    const slow = trickle(
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaa\r\n\r\n',
      20_000,
    );
    // Others are served while the slow client dribbles.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await fetch(`${world.kiln.url}/healthz`)).status).toBe(200);
    const { ms, answer } = await slow;
    expect(ms, 'connection still open when the test gave up').toBeLessThan(20_000);
    // Cut off with a 408, or closed without one; never answered as a complete request.
    expect(answer).not.toMatch(/^HTTP\/1\.1 200/);
    expect((await fetch(`${world.kiln.url}/healthz`)).status).toBe(200);
  }, 40_000);
});
