import { PassThrough, Readable } from 'node:stream';
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

  it('sends an object as data packets that give back its bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 200_000 }), { maxLength: 4 }),
        async (sizes) => {
          const chunks = sizes.map((size) => Buffer.alloc(size, size % 251));
          const output = new PassThrough();
          const written: Buffer[] = [];
          output.on('data', (chunk: Buffer) => written.push(chunk));
          const sink = new PacketSink(output, new AbortController().signal);
          await sink.replyWithData(['size=1'], Readable.from(chunks));
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
        },
      ),
      { numRuns: 30 },
    );
  });
});
