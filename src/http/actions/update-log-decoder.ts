/**
 * A decoder written for `runner.v1.UpdateLogRequest` alone, the message a runner sends most and
 * the largest: 100 log rows a call while a job runs. The generic `fromBinary` walks descriptors
 * and builds every row and timestamp through `create`; this reads the few fields straight into
 * the same plain message objects, which takes a fraction of the time (docs/performance.md,
 * runner-tasks).
 *
 * It answers what `fromBinary` answers for every message it accepts (update-log-decoder.test.ts
 * checks that on generated messages and on arbitrary bytes), less the unknown fields, which
 * nothing reads. It is stricter where `fromBinary` reads on regardless: a known field with a
 * wire type it cannot have, or a nested message whose fields run past its declared length, is
 * refused rather than read as something else. Every refusal is a `MalformedMessage` naming what
 * is wrong; nothing else is thrown, whatever the bytes.
 *
 * Rows past `MAX_ROWS_PER_CALL` are stepped over, not decoded: they are not stored in this call
 * (the runner sends them again, being unacknowledged), so a body of a million empty rows costs a
 * scan of its bytes and no more objects than an honest one. Such a call also cannot say
 * `no_more`, since rows of it remain.
 *
 * A row's content is checked to be UTF-8 when it is read but stays bytes of the body until
 * something asks for it: a call past a log's cap is acknowledged and its rows dropped unread
 * (log-caps.ts), and a runner flooding one would otherwise have every row of every call turned
 * into a string for the collector to clear (docs/performance.md, hostile CI input).
 */
import { isUtf8 } from 'node:buffer';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import { MAX_ROWS_PER_CALL } from '../../domain/ci/logs/log-limits.ts';
import type { LogRow, UpdateLogRequest } from '../../gen/runner/v1/messages_pb.js';

/** Bytes that are not an encoding of the message; the edge answers it with `invalid_argument`. */
export class MalformedMessage extends Error {
  override name = 'MalformedMessage';
}

const VARINT = 0;
const FIXED64 = 1;
const DELIMITED = 2;
const START_GROUP = 3;
const END_GROUP = 4;
const FIXED32 = 5;

/** How deeply unknown groups may nest before the body is refused (protobuf-es's own limit). */
const GROUP_DEPTH_LIMIT = 100;

/** Decodes an UpdateLogRequest; throws `MalformedMessage` for bytes that do not encode one. */
export function decodeUpdateLogRequest(bytes: Uint8Array): UpdateLogRequest {
  const reader = new WireReader(bytes);
  const message: UpdateLogRequest = {
    $typeName: 'runner.v1.UpdateLogRequest',
    taskId: 0n,
    index: 0n,
    rows: [],
    noMore: false,
  };
  let rowsLeftOut = false;
  while (reader.pos < bytes.length) {
    const tag = reader.tag();
    const field = tag >>> 3;
    if (field === 1) message.taskId = reader.int64(tag, VARINT);
    else if (field === 2) message.index = reader.int64(tag, VARINT);
    else if (field === 3 && message.rows.length < MAX_ROWS_PER_CALL) {
      message.rows.push(readRow(reader, reader.delimited(tag)));
    } else if (field === 3) {
      reader.pos = reader.delimited(tag);
      rowsLeftOut = true;
    } else if (field === 4) message.noMore = reader.int64(tag, VARINT) !== 0n;
    else reader.skip(tag, 0);
  }
  if (rowsLeftOut) message.noMore = false;
  return message;
}

function readRow(reader: WireReader, end: number): LogRow {
  const row = new BodyLogRow();
  while (reader.pos < end) {
    const tag = reader.tag();
    const field = tag >>> 3;
    if (field === 1) row.time = readTimestamp(reader, reader.delimited(tag), row.time);
    else if (field === 2) {
      const start = reader.utf8(tag);
      row.setUtf8(reader.buffer, start, reader.pos);
    } else reader.skip(tag, 0);
  }
  return reader.endAt(end, row);
}

/**
 * A `LogRow` whose content is a UTF-8 span of the body (already checked), made a string the
 * first time it is read. Only the body parser's own request holds it, so the body it keeps
 * alive is freed with the call.
 */
class BodyLogRow implements LogRow {
  readonly $typeName = 'runner.v1.LogRow';
  time?: Timestamp;
  #bytes: Buffer | undefined;
  #start = 0;
  #end = 0;
  #text = '';

  get content(): string {
    if (this.#bytes !== undefined) {
      this.#text = this.#bytes.toString('utf8', this.#start, this.#end);
      this.#bytes = undefined;
    }
    return this.#text;
  }

  set content(text: string) {
    this.#bytes = undefined;
    this.#text = text;
  }

  /** The content is `bytes[start, end)`; an empty span is the empty string at once. */
  setUtf8(bytes: Buffer, start: number, end: number): void {
    this.#text = '';
    this.#bytes = end > start ? bytes : undefined;
    this.#start = start;
    this.#end = end;
  }
}

/** A repeated `time` merges into the one read before, field by field, as protobuf says. */
function readTimestamp(reader: WireReader, end: number, into: Timestamp | undefined): Timestamp {
  const time: Timestamp = into ?? { $typeName: 'google.protobuf.Timestamp', seconds: 0n, nanos: 0 };
  while (reader.pos < end) {
    const tag = reader.tag();
    const field = tag >>> 3;
    if (field === 1) time.seconds = reader.int64(tag, VARINT);
    // int32: the low 32 bits of the varint, signed.
    else if (field === 2) time.nanos = reader.varint32(tag, VARINT) | 0;
    else reader.skip(tag, 0);
  }
  return reader.endAt(end, time);
}

/** A cursor over protobuf wire data that checks every read against the end of the bytes. */
class WireReader {
  readonly #bytes: Uint8Array;
  readonly #buffer: Buffer;
  pos = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.#buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  #byte(): number {
    const byte = this.#bytes[this.pos++];
    if (byte === undefined) throw new MalformedMessage('premature end of data');
    return byte;
  }

  /** A field tag; refuses field number 0, wire types 6 and 7 and tags wider than 32 bits. */
  tag(): number {
    const start = this.pos;
    const tag = this.#varint32();
    const width = this.pos - start;
    if (width > 5 || (width === 5 && (this.#bytes[this.pos - 1] ?? 0) > 0x0f)) {
      throw new MalformedMessage('field tag wider than 32 bits');
    }
    if (tag >>> 3 === 0 || (tag & 7) > FIXED32) {
      throw new MalformedMessage(`illegal field tag ${tag >>> 3} with wire type ${tag & 7}`);
    }
    return tag;
  }

  /** The low 32 bits of the varint of field `tag`, which must have wire type `wire`. */
  varint32(tag: number, wire: number): number {
    expectWire(tag, wire);
    return this.#varint32();
  }

  /** The low 32 bits of a varint of at most 10 bytes, unsigned. */
  #varint32(): number {
    let result = 0;
    for (let at = 0; at < 10; at++) {
      const byte = this.#byte();
      if (at < 5) result |= (byte & 0x7f) << (7 * at);
      if ((byte & 0x80) === 0) return result >>> 0;
    }
    throw new MalformedMessage('varint longer than 10 bytes');
  }

  /** A varint of at most 10 bytes as a signed 64-bit integer (bits past 64 are dropped). */
  int64(tag: number, wire: number): bigint {
    expectWire(tag, wire);
    let low = 0;
    let high = 0;
    for (let at = 0; at < 10; at++) {
      const byte = this.#byte();
      const bits = byte & 0x7f;
      if (at < 4) low |= bits << (7 * at);
      else if (at === 4) {
        low |= (bits & 0x0f) << 28;
        high = bits >> 4;
      } else high |= bits << (7 * at - 32);
      if ((byte & 0x80) === 0) {
        if (high === 0 && low >= 0) return BigInt(low);
        return BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0));
      }
    }
    throw new MalformedMessage('varint longer than 10 bytes');
  }

  /** The end offset of the length-delimited field `tag` starts, checked against the bytes. */
  delimited(tag: number): number {
    const length = this.varint32(tag, DELIMITED);
    const end = this.pos + length;
    if (end > this.#bytes.length) throw new MalformedMessage('premature end of data');
    return end;
  }

  /** The bytes read, as a Buffer (whose UTF-8 decoding is the fastest Node offers). */
  get buffer(): Buffer {
    return this.#buffer;
  }

  /**
   * Steps over the string field `tag`, checked to be UTF-8 as proto3 requires, and answers where
   * its bytes start (they end at `pos`). A leading U+FEFF stays: it is text, not a byte-order
   * mark, and Buffer's decoding keeps it.
   */
  utf8(tag: number): number {
    const end = this.delimited(tag);
    const start = this.pos;
    if (!isUtf8(this.#bytes.subarray(start, end))) {
      throw new MalformedMessage('string field is not valid UTF-8');
    }
    this.pos = end;
    return start;
  }

  /** Steps over a field the decoder does not read; a group is skipped to its matching end. */
  skip(tag: number, depth: number): void {
    const wire = tag & 7;
    if (wire === VARINT) this.int64(tag, VARINT);
    else if (wire === FIXED64) this.#advance(8);
    else if (wire === FIXED32) this.#advance(4);
    else if (wire === DELIMITED) this.pos = this.delimited(tag);
    else if (wire === START_GROUP) {
      if (depth >= GROUP_DEPTH_LIMIT) throw new MalformedMessage('groups nested too deeply');
      for (;;) {
        const inner = this.tag();
        if ((inner & 7) === END_GROUP) {
          if (inner >>> 3 !== tag >>> 3)
            throw new MalformedMessage('group ends with another field');
          return;
        }
        this.skip(inner, depth + 1);
      }
    } else throw new MalformedMessage(`end of group ${tag >>> 3} that never started`);
  }

  #advance(count: number): void {
    if (this.pos + count > this.#bytes.length) throw new MalformedMessage('premature end of data');
    this.pos += count;
  }

  /** `value` once the nested message ended exactly at its declared end. */
  endAt<T>(end: number, value: T): T {
    if (this.pos !== end) throw new MalformedMessage('nested message overruns its length');
    return value;
  }
}

/** Refuses a known field sent with a wire type it cannot have. */
function expectWire(tag: number, wire: number): void {
  if ((tag & 7) !== wire) {
    throw new MalformedMessage(`field ${tag >>> 3} has wire type ${tag & 7}, not ${wire}`);
  }
}
