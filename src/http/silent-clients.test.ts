import { createServer, type RequestListener, request, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeSilentClients } from './silent-clients.ts';

const IDLE_MS = 300;
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function serve(handler: RequestListener): Promise<number> {
  server = createServer({ connectionsCheckingInterval: 100 }, handler);
  server.timeout = IDLE_MS;
  closeSilentClients(server, IDLE_MS);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends `head` and `body`; resolves with what was read once the connection closed. A client that
 * does not read takes one look at the answer, then reads nothing for five idle timeouts (a paused
 * socket would not see the close either) and reads what is left.
 */
function rawClient(port: number, head: string, options: { read: boolean; body?: Buffer }) {
  const socket = connect(port, '127.0.0.1');
  let read = 0;
  socket.on('data', (chunk: Buffer) => {
    read += chunk.length;
  });
  if (!options.read) {
    socket.once('data', () => {
      socket.pause();
      setTimeout(() => socket.resume(), 5 * IDLE_MS);
    });
  }
  socket.write(head);
  if (options.body) socket.write(options.body);
  return new Promise<number>((resolve) => socket.once('close', () => resolve(read)));
}

/** A POST of `body` with the node client; the answer's status and text. */
function post(port: number, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { port, host: '127.0.0.1', method: 'POST', headers: { 'content-length': body.length } },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('closeSilentClients', () => {
  it('closes a connection whose client stops reading an answer', async () => {
    const size = 32 * 1024 * 1024;
    const port = await serve((_request, response) => response.end(Buffer.alloc(size)));
    const read = await rawClient(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', { read: false });
    expect(read).toBeLessThan(size);
  });

  it('closes a connection whose client stops sending its body', async () => {
    let ended = false;
    const port = await serve((request, response) => {
      request.resume().on('end', () => {
        ended = true;
        response.end('ok');
      });
    });
    const head = 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n';
    await rawClient(port, head, { read: true, body: Buffer.alloc(10) });
    expect(ended).toBe(false);
  });

  it('keeps a connection that is silent while the server works on a whole request', async () => {
    const port = await serve((request, response) => {
      request.resume().on('end', async () => {
        await later(4 * IDLE_MS);
        response.end('done');
      });
    });
    expect(await post(port, Buffer.alloc(1024))).toEqual({ status: 200, text: 'done' });
  });

  it('keeps a connection that is silent because the server is not reading yet', async () => {
    const body = Buffer.alloc(16 * 1024 * 1024, 1);
    const port = await serve(async (request, response) => {
      await later(4 * IDLE_MS);
      let received = 0;
      request.on('data', (chunk: Buffer) => {
        received += chunk.length;
      });
      request.on('end', () => response.end(String(received)));
    });
    expect(await post(port, body)).toEqual({ status: 200, text: String(body.length) });
  });
});
