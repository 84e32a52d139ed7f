import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UpdateLogRequestSchema } from '../gen/runner/v1/messages_pb.js';
import { EncodedLog } from './log-rows.ts';

/** The request as protobuf itself builds it from `LogRow` objects. */
function reference(rows: ReadonlyArray<readonly [string, number]>, index: number) {
  return toBinary(
    UpdateLogRequestSchema,
    create(UpdateLogRequestSchema, {
      taskId: 7n,
      index: BigInt(index),
      rows: rows.map(([content, ms]) => ({
        content,
        time: { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 },
      })),
    }),
  );
}

function encoded(log: EncodedLog, count: number, index: number) {
  const request = create(UpdateLogRequestSchema, { taskId: 7n, index: BigInt(index) });
  request.$unknown = log.take(count);
  return toBinary(UpdateLogRequestSchema, request);
}

const row = fc.tuple(
  fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ maxLength: 3 })),
  fc.oneof(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.constant(1_700_000_000_000)),
);

describe('EncodedLog', () => {
  it('puts on the wire exactly the bytes of the same rows as LogRow objects', () => {
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 60 }),
        fc.array(fc.nat(25), { maxLength: 6 }),
        (rows, drops) => {
          const log = new EncodedLog();
          let first = 0;
          let next = 0;
          // Rows arrive and are acknowledged in turns, as they are while a step prints.
          for (const drop of [...drops, 0]) {
            for (const [content, ms] of rows.slice(next, next + 20)) log.push(content, ms);
            next = Math.min(rows.length, next + 20);
            const kept = rows.slice(first, next);
            expect(log.length).toBe(kept.length);
            expect(encoded(log, kept.length, first)).toEqual(reference(kept, first));
            const dropped = Math.min(drop, kept.length);
            log.drop(dropped);
            first += dropped;
          }
        },
      ),
    );
  });

  it('keeps rows intact while the buffer grows and lets acknowledged ones go', () => {
    const log = new EncodedLog();
    const line = (i: number) => `line ${i} ${'é'.repeat(i % 50)}`;
    for (let i = 0; i < 20_000; i++) {
      log.push(line(i), 1_700_000_000_000 + i);
      if (i % 1000 === 999) log.drop(900);
    }
    const first = 20_000 - log.length;
    const request = fromBinary(UpdateLogRequestSchema, encoded(log, log.length, first));
    expect(request.rows.map((r) => r.content)).toEqual(
      Array.from({ length: log.length }, (_, i) => line(first + i)),
    );
    expect(Number(request.rows[0]?.time?.nanos)).toBe((first % 1000) * 1_000_000);
  });

  it('fits a request to its row and byte limits, always with at least one row', () => {
    const log = new EncodedLog();
    for (let i = 0; i < 100; i++) log.push('x'.repeat(100), 0);
    expect(log.fitting(30, 1_000_000)).toBe(30);
    expect(log.fitting(1000, 1060)).toBe(10);
    expect(log.fitting(1000, 10)).toBe(1);
    expect(new EncodedLog().fitting(10, 10)).toBe(0);
  });
});
