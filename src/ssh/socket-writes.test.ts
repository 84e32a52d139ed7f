import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendWritesPerTick } from './socket-writes.ts';

const open: Socket[] = [];
afterEach(() => {
  for (const socket of open.splice(0)) socket.destroy();
});

/** A connected pair on 127.0.0.1: the accepted side and the client side. */
async function pair(): Promise<{ served: Socket; client: Socket }> {
  const listener = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const address = listener.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const accepted = once(listener, 'connection') as Promise<[Socket]>;
  const client = connect(port, '127.0.0.1');
  const [served] = await accepted;
  listener.close();
  open.push(served, client);
  return { served, client };
}

/** What the client receives, chunk by chunk as it arrives, until `total` bytes have come. */
function chunks(client: Socket, total: number): Promise<Buffer[]> {
  const received: Buffer[] = [];
  let bytes = 0;
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      received.push(chunk);
      bytes += chunk.length;
      if (bytes < total) return;
      client.off('data', onData);
      resolve(received);
    };
    client.on('data', onData);
  });
}

describe('sendWritesPerTick', () => {
  it('answers each turn of a conversation at once, not after the peer acknowledges', async () => {
    const { served, client } = await pair();
    sendWritesPerTick(served);
    // The SSH handshake's shape: the client asks, the server answers in pieces (length, body,
    // MAC). A peer in conversation delays its acknowledgements by 40 ms; a piece held back until
    // then (Nagle's algorithm) makes 20 turns last 800 ms.
    served.on('data', (asked: Buffer) => {
      served.write(Buffer.from([0, 0, 0, 8]));
      served.write(Buffer.alloc(8, asked[0]));
      served.write(Buffer.alloc(32, asked[0]));
    });
    const started = performance.now();
    for (let turn = 0; turn < 20; turn++) {
      const answer = chunks(client, 44);
      client.write(Buffer.from([turn]));
      expect(Buffer.concat(await answer)).toEqual(
        Buffer.concat([Buffer.from([0, 0, 0, 8]), Buffer.alloc(8, turn), Buffer.alloc(32, turn)]),
      );
    }
    expect(performance.now() - started).toBeLessThan(400);
  });
});
