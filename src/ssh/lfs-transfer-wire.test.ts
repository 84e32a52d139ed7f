import { Readable, Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePktLines, MAX_PKT_PAYLOAD } from '../git/pkt-line.ts';
import { FramingError, PacketSink, PacketSource } from './lfs-transfer-wire.ts';

/** Every packet of `chunks` as the source gives them, or the error it stopped with. */
async function drain(chunks: Uint8Array[]): Promise<{ count: number; error?: unknown }> {
  const source = new PacketSource(Readable.from(chunks.map((chunk) => Buffer.from(chunk))));
  let count = 0;
  try {
    while (await source.next()) count += 1;
    return { count };
  } catch (error) {
    return { count, error };
  }
}

describe('the packets of git-lfs-transfer', () => {
  it('reads any bytes as packets or stops with a framing error, never anything else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 8 }),
        async (chunks) => {
          const { error } = await drain(chunks);
          if (error !== undefined) expect(error).toBeInstanceOf(FramingError);
        },
      ),
    );
  });

  it('calls a stream cut inside a packet a framing error', async () => {
    expect((await drain([Buffer.from('0009ab')])).error).toBeInstanceOf(FramingError);
    expect((await drain([Buffer.from('00')])).error).toBeInstanceOf(FramingError);
    expect(await drain([Buffer.from('0000'), Buffer.from('0006ab')])).toEqual({ count: 2 });
  });

  it('sends an object as data packets that give back its bytes, framing into one buffer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 200_000 }), { maxLength: 4 }),
        async (sizes) => {
          const chunks = sizes.map((size) => Buffer.alloc(size, size % 251));
          // A channel copies what it is given before it calls back, as ssh2's does.
          const written: Buffer[] = [];
          const memory: ArrayBufferLike[] = [];
          const output = new Writable({
            write(chunk: Buffer, _encoding, done) {
              memory.push(chunk.buffer);
              written.push(Buffer.from(chunk));
              setImmediate(done);
            },
          });
          const sink = new PacketSink(output, new AbortController().signal);
          // Hands every chunk through one reused buffer, overwritten once the sink resolves.
          const reused = Buffer.alloc(200_000);
          await sink.replyWithCopy(['size=1'], async (send) => {
            for (const chunk of chunks) {
              chunk.copy(reused);
              await send(reused.subarray(0, chunk.byteLength));
              reused.fill(0xee);
            }
          });
          await new Promise((resolve) => output.end(resolve));
          const packets = decodePktLines(Buffer.concat(written));
          expect(packets.slice(0, 3).map((packet) => packet.kind)).toEqual([
            'data',
            'data',
            'delim',
          ]);
          expect(packets.at(-1)).toEqual({ kind: 'flush' });
          const data = packets.slice(3, -1).map((packet) => {
            if (packet.kind !== 'data') throw new Error(`a ${packet.kind} among the data`);
            expect(packet.payload.length).toBeLessThanOrEqual(MAX_PKT_PAYLOAD);
            return packet.payload;
          });
          expect(Buffer.concat(data).equals(Buffer.concat(chunks))).toBe(true);
          // Between the head and the flush, a new framing buffer only for a larger chunk.
          let largest = 0;
          let growths = 0;
          for (const size of sizes) {
            if (size <= largest) continue;
            largest = size;
            growths += 1;
          }
          expect(new Set(memory.slice(1, -1)).size).toBe(growths);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('stops waiting for a channel that closed without calling back', async () => {
    const output = new Writable({ write: () => {} });
    const aborted = new AbortController();
    const sink = new PacketSink(output, aborted.signal);
    const reply = sink.replyWithCopy(['size=3'], async (send) => {
      const sent = send(Buffer.from('abc'));
      aborted.abort();
      await sent;
    });
    await expect(reply).rejects.toThrow('closed');
  });
});
