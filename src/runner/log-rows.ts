/**
 * The log rows a task has printed and the server has not yet acknowledged, kept already encoded
 * as `runner.v1.LogRow` protobuf messages in one growing buffer.
 *
 * A step can print hundreds of thousands of lines; building a `LogRow` object with its own
 * `Timestamp` per line and letting the generic protobuf encoder walk them costs the runner more
 * CPU than the step itself. Encoding each row once as it arrives (a few bytes of framing around
 * the UTF-8 text, the timestamp's bytes shared by every row of the same millisecond) makes
 * sending a batch a matter of handing over byte ranges.
 *
 * The rows travel as field 3 (`rows`) of an `UpdateLogRequest` whose `rows` list is left empty.
 * Protobuf writes a message's unknown fields verbatim, as the field's tag followed by its data;
 * each row is stored with its own tag (a repeated field is one tag, length and body per row), so
 * the rows of a request are one unknown field 3 whose data starts after the first row's tag. The
 * bytes on the wire are exactly those of the same request built from `LogRow` objects (a test
 * compares them), and the server decodes ordinary `rows`.
 */
import { WireType } from '@bufbuild/protobuf/wire';

/** Field numbers of `runner.v1.UpdateLogRequest.rows`, `LogRow` and `google.protobuf.Timestamp`. */
const ROWS_FIELD = 3;
const ROW = (ROWS_FIELD << 3) | WireType.LengthDelimited;
const ROW_TIME = (1 << 3) | WireType.LengthDelimited;
const ROW_CONTENT = (2 << 3) | WireType.LengthDelimited;
const TIME_SECONDS = (1 << 3) | WireType.Varint;
const TIME_NANOS = (2 << 3) | WireType.Varint;

/** Encoded rows, as protobuf-es represents a field it writes as is. */
export type EncodedRows = {
  readonly no: number;
  readonly wireType: WireType;
  readonly data: Uint8Array;
};

const INITIAL_BYTES = 64 * 1024;

/** Bytes of `value` as a base-128 varint. */
function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
}

function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  let pos = at;
  let rest = value;
  while (rest >= 0x80) {
    bytes[pos++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  bytes[pos++] = rest;
  return pos;
}

/** `Timestamp{seconds, nanos}` for a time in milliseconds, zero nanos left out as protobuf does. */
function encodeTime(ms: number): Uint8Array {
  const seconds = Math.floor(ms / 1000);
  const nanos = (ms - seconds * 1000) * 1_000_000;
  const bytes = new Uint8Array(2 + varintSize(seconds) + (nanos ? 1 + varintSize(nanos) : 0));
  let pos = 0;
  if (seconds !== 0) {
    bytes[pos++] = TIME_SECONDS;
    pos = writeVarint(bytes, pos, seconds);
  }
  if (nanos !== 0) {
    bytes[pos++] = TIME_NANOS;
    pos = writeVarint(bytes, pos, nanos);
  }
  return bytes.subarray(0, pos);
}

/** Rows from an absolute index on, each stored as its tag, length and `LogRow` body. */
export class EncodedLog {
  #bytes = Buffer.allocUnsafe(INITIAL_BYTES);
  /** Where each kept row starts in `#bytes`; one more entry marks where the last one ends. */
  #starts: number[] = [0];
  /** Index in `#starts` of the first kept row (rows before it are acknowledged). */
  #head = 0;
  #timeMs = Number.NaN;
  #time: Uint8Array = new Uint8Array();

  /** Rows kept. */
  get length(): number {
    return this.#starts.length - 1 - this.#head;
  }

  /** Appends one row printed at `ms` (milliseconds since the epoch). */
  push(content: string, ms: number): void {
    if (ms !== this.#timeMs) {
      this.#timeMs = ms;
      this.#time = encodeTime(ms);
    }
    const time = this.#time;
    const text = content === '' ? 0 : Buffer.byteLength(content, 'utf8');
    const body =
      1 + varintSize(time.length) + time.length + (text ? 1 + varintSize(text) + text : 0);
    const bytes = this.#reserve(1 + varintSize(body) + body);
    let pos = this.#starts[this.#starts.length - 1] ?? 0;
    bytes[pos++] = ROW;
    pos = writeVarint(bytes, pos, body);
    bytes[pos++] = ROW_TIME;
    pos = writeVarint(bytes, pos, time.length);
    bytes.set(time, pos);
    pos += time.length;
    if (text) {
      bytes[pos++] = ROW_CONTENT;
      pos = writeVarint(bytes, pos, text);
      pos += bytes.write(content, pos, text, 'utf8');
    }
    this.#starts.push(pos);
  }

  /** Drops the first `count` rows (acknowledged by the server). */
  drop(count: number): void {
    this.#head = Math.min(this.#head + Math.max(0, count), this.#starts.length - 1);
  }

  /**
   * How many of the first rows fit in one request: at most `maxRows` and `maxBytes` of encoded
   * rows, and always at least one when there is any.
   */
  fitting(maxRows: number, maxBytes: number): number {
    const starts = this.#starts;
    const head = this.#head;
    const limit = Math.min(this.length, maxRows);
    const first = starts[head] ?? 0;
    let count = 0;
    while (count < limit && (starts[head + count + 1] ?? 0) - first <= maxBytes) count++;
    return Math.max(count, Math.min(1, limit));
  }

  /** The first `count` rows as the unknown fields protobuf writes into an `UpdateLogRequest`. */
  take(count: number): EncodedRows[] {
    const taken = Math.min(count, this.length);
    if (taken <= 0) return [];
    const start = (this.#starts[this.#head] ?? 0) + 1;
    const end = this.#starts[this.#head + taken] ?? start;
    return [
      {
        no: ROWS_FIELD,
        wireType: WireType.LengthDelimited,
        data: this.#bytes.subarray(start, end),
      },
    ];
  }

  /**
   * The buffer, with room for `size` more bytes after the last row. Acknowledged rows are let go here, when the buffer
   * is full, rather than on every acknowledgement; rows handed out by `take` keep the old
   * buffer alive until their request is done with it.
   */
  #reserve(size: number): Buffer {
    const end = this.#starts[this.#starts.length - 1] ?? 0;
    if (end + size <= this.#bytes.length) return this.#bytes;
    const first = this.#starts[this.#head] ?? 0;
    const kept = end - first;
    let capacity = this.#bytes.length;
    while (capacity < (kept + size) * 2) capacity *= 2;
    const next = Buffer.allocUnsafe(capacity);
    this.#bytes.copy(next, 0, first, end);
    this.#bytes = next;
    this.#starts = this.#starts.slice(this.#head).map((start) => start - first);
    this.#head = 0;
    return next;
  }
}
