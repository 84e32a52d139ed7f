import { isUtf8 } from 'node:buffer';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ROWS_PER_CALL } from '../../domain/ci/logs/log-limits.ts';
import { type UpdateLogRequest, UpdateLogRequestSchema } from '../../gen/runner/v1/messages_pb.js';
import { decodeUpdateLogRequest, MalformedMessage } from './update-log-decoder.ts';

/** What the generic decoder makes of the bytes, without the unknown fields nothing reads. */
const reference = (bytes: Uint8Array) =>
  readable(fromBinary(UpdateLogRequestSchema, bytes, { readUnknownFields: false }));

/** The message with each row's content read, as plain data to compare. */
const readable = (message: UpdateLogRequest) => ({
  ...message,
  rows: message.rows.map((row) => ({ ...row, content: row.content })),
});

/** The decoder's answer, read as `reference` reads fromBinary's. */
const decode = (bytes: Uint8Array) => readable(decodeUpdateLogRequest(bytes));

const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constant('\uFEFFbom'));

const timestamp = fc.record({ seconds: int64, nanos: int32 });
const row = fc.record({ time: fc.option(timestamp, { nil: undefined }), content: text });
const request = fc.record({
  taskId: int64,
  index: int64,
  rows: fc.array(row, { maxLength: 12 }),
  noMore: fc.boolean(),
});

/** An unknown field of any wire type, packed and unpacked repeated varints among them. */
const unknownField = fc.record({
  field: fc.integer({ min: 5, max: 2 ** 29 - 1 }),
  kind: fc.constantFrom('varint', 'fixed32', 'fixed64', 'bytes', 'packed', 'group'),
  values: fc.array(int64, { minLength: 1, maxLength: 4 }),
});
type Unknown = typeof unknownField extends fc.Arbitrary<infer T> ? T : never;

function writeUnknown(writer: BinaryWriter, { field, kind, values }: Unknown): void {
  const [first = 0n] = values;
  if (kind === 'varint')
    for (const value of values) writer.tag(field, WireType.Varint).int64(value);
  else if (kind === 'fixed32') writer.tag(field, WireType.Bit32).fixed32(Number(first & 0xffffn));
  else if (kind === 'fixed64') writer.tag(field, WireType.Bit64).sfixed64(first);
  else if (kind === 'bytes') writer.tag(field, WireType.LengthDelimited).string(String(first));
  else if (kind === 'packed') {
    writer.tag(field, WireType.LengthDelimited).fork();
    for (const value of values) writer.int64(value);
    writer.join();
  } else {
    writer.tag(field, WireType.StartGroup).tag(1, WireType.Varint).int64(first);
    writer.tag(field, WireType.EndGroup);
  }
}

/**
 * A request written field by field with unknown fields at every level between the known ones,
 * each known scalar sent twice (the last one counts) and each time split in two parts (which
 * merge).
 */
const interleaved = fc
  .record({ message: request, unknown: fc.array(unknownField, { maxLength: 3 }) })
  .map(({ message, unknown }) => {
    const writer = new BinaryWriter();
    const noise = () => {
      for (const field of unknown) writeUnknown(writer, field);
    };
    writer.tag(1, WireType.Varint).int64(message.index);
    noise();
    writer.tag(1, WireType.Varint).int64(message.taskId);
    writer.tag(2, WireType.Varint).int64(message.index);
    for (const { time, content } of message.rows) {
      writer.tag(3, WireType.LengthDelimited).fork();
      noise();
      if (time !== undefined) {
        writer.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.Varint).int64(time.seconds);
        noise();
        writer.join();
        writer.tag(1, WireType.LengthDelimited).fork().tag(2, WireType.Varint).int32(time.nanos);
        writer.join();
      }
      writer.tag(2, WireType.LengthDelimited).string(content);
      writer.join();
    }
    writer.tag(4, WireType.Varint).bool(message.noMore);
    noise();
    return writer.finish();
  });

/** Decodes, or says it refused: anything thrown but `MalformedMessage` fails the property. */
function decodeOrRefuse(bytes: Uint8Array) {
  try {
    return decode(bytes);
  } catch (error) {
    if (error instanceof MalformedMessage) return 'refused';
    throw error;
  }
}

describe('the UpdateLogRequest decoder', () => {
  it('reads every message as fromBinary does', () => {
    fc.assert(
      fc.property(request, (message) => {
        const bytes = toBinary(UpdateLogRequestSchema, create(UpdateLogRequestSchema, message));
        expect(decode(bytes)).toEqual(reference(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('skips unknown fields, keeps the last scalar and merges a repeated time, as fromBinary does', () => {
    fc.assert(
      fc.property(interleaved, (bytes) => {
        expect(decode(bytes)).toEqual(reference(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses cut or altered bytes with MalformedMessage, or reads them as fromBinary does', () => {
    const altered = fc
      .tuple(interleaved, fc.nat(), fc.nat(), fc.integer({ min: 0, max: 255 }))
      .map(([bytes, cut, at, value]) => {
        const copy = bytes.slice(0, bytes.length === 0 ? 0 : cut % (bytes.length + 1));
        if (copy.length > 0) copy[at % copy.length] = value;
        return copy;
      });
    fc.assert(
      fc.property(fc.oneof(altered, fc.uint8Array({ maxLength: 64 })), (bytes) => {
        const decoded = decodeOrRefuse(bytes);
        if (decoded !== 'refused') expect(decoded).toEqual(reference(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses what fromBinary refuses', () => {
    const refused = [
      Uint8Array.of(0x0a, 0xff), // rows with a length running past the end
      Uint8Array.of(0x08), // task_id without its value
      Uint8Array.of(0x00, 0x01), // field number 0
      Uint8Array.of(0x1a, 0x02, 0x12, 0x01), // a row whose content is cut
      Uint8Array.of(0x1a, 0x03, 0x12, 0x01, 0xff), // content that is not UTF-8
      Uint8Array.of(0x08, ...Array(10).fill(0xff), 0x01), // a varint of 11 bytes
      Uint8Array.of(0x2c), // the end of a group never started
    ];
    for (const bytes of refused) {
      expect(() => reference(bytes)).toThrow();
      expect(() => decodeUpdateLogRequest(bytes)).toThrow(MalformedMessage);
    }
  });

  it('refuses content that is not UTF-8 when decoding, before any row is read', () => {
    const notUtf8 = fc.uint8Array({ minLength: 1, maxLength: 16 }).filter((b) => !isUtf8(b));
    fc.assert(
      fc.property(fc.array(text, { maxLength: 3 }), notUtf8, (before, bad) => {
        const writer = new BinaryWriter();
        for (const content of before)
          writer
            .tag(3, WireType.LengthDelimited)
            .fork()
            .tag(2, WireType.LengthDelimited)
            .string(content)
            .join();
        writer
          .tag(3, WireType.LengthDelimited)
          .fork()
          .tag(2, WireType.LengthDelimited)
          .bytes(bad)
          .join();
        const bytes = writer.finish();
        expect(() => reference(bytes)).toThrow();
        expect(() => decodeUpdateLogRequest(bytes)).toThrow(MalformedMessage);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a known field sent with another wire type, which fromBinary would misread', () => {
    // task_id as a length-delimited field: fromBinary reads the length as the id.
    const bytes = Uint8Array.of(0x0a, 0x01, 0x07);
    expect(() => decodeUpdateLogRequest(bytes)).toThrow(/field 1 has wire type 2/);
  });

  it('decodes no more than the rows one call stores, and then cannot say no_more', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 * MAX_ROWS_PER_CALL }),
        fc.boolean(),
        (count, noMore) => {
          const rows = Array.from({ length: count }, (_, at) => ({ content: String(at) }));
          const bytes = toBinary(
            UpdateLogRequestSchema,
            create(UpdateLogRequestSchema, { taskId: 1n, rows, noMore }),
          );
          const decoded = decodeUpdateLogRequest(bytes);
          expect(decoded.rows.length).toBe(Math.min(count, MAX_ROWS_PER_CALL));
          expect(decoded.rows.at(-1)?.content).toBe(
            count === 0 ? undefined : String(decoded.rows.length - 1),
          );
          expect(decoded.noMore).toBe(noMore && count <= MAX_ROWS_PER_CALL);
        },
      ),
      { numRuns: 30 },
    );
  });
});
