import { fstatSync, readSync, writeSync } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { errorCode } from '../lib/thrown.ts';

/** A log line as the runner sends it (the domain's `LogRow`). */
type LogRow = { readonly time: Date; readonly content: string };

/** How far one append may take a task's log: its stored bytes and rows after the append. */
type AppendLimit = { readonly bytes: number; readonly rows: number };

const NO_LIMIT: AppendLimit = { bytes: Number.MAX_SAFE_INTEGER, rows: Number.MAX_SAFE_INTEGER };

/** Rows longer than this are cut (Gitea's limit); the runner never needs more. */
export const MAX_ROW_BYTES = 64 * 1024;

/** Bytes per entry of the offsets file: one big-endian uint64 end offset per row. */
const ENTRY_BYTES = 8;

/** The encoding buffer of a store: a batch of 100 typical rows fits many times over. */
const SCRATCH_BYTES = 64 * 1024;
/**
 * A larger encoding buffer, grown for one batch of long rows, is let go after it. Above the
 * largest batch UpdateLog accepts (2 MiB of rows), so a runner's batches reuse one buffer.
 */
const MAX_SCRATCH_BYTES = 4 * 1024 * 1024;

/** Tasks whose log files stay open between appends (runners report every few seconds). */
const MAX_OPEN_WRITERS = 64;

type FileHandle = Awaited<ReturnType<typeof open>>;
type Writer = { index: FileHandle; log: FileHandle; count: number; end: number };

/** Opens a file for positioned reads and writes, creating it when missing. */
async function openFile(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r+');
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
    await (await open(path, 'a')).close();
    return open(path, 'r+');
  }
}

/**
 * Task logs on disk (the domain's `TaskLogs`), one pair of files per task under `root/<id % 256 as 2 hex>/`:
 * `<id>.log` holds the rows (`<RFC 3339 time> <content>\n`), `<id>.idx` the end offset of each
 * row. The row count is the offsets file's size over 8, and any page of rows is two positioned
 * reads (its offsets, then its bytes), so the last page of a 100,000-line log costs what the
 * first does and the database is never asked per line.
 *
 * Appends to one task are serialised in this process, and the files of recently written tasks
 * stay open, so an append is an fstat and two positioned writes; the fstat notices rows another
 * replica appended (a task's reports come from its one runner, one at a time, through any
 * replica). The offsets file is written after the rows, so a crash in between leaves bytes past
 * the last recorded offset, which the next append overwrites.
 *
 * On an open task those three calls are synchronous: each is a few microseconds against the page
 * cache, where the promise versions cost a thread-pool round trip and a promise each, and made
 * UpdateLog cost about three times the CPU of Ping (docs/performance.md, runner-tasks). Opening,
 * reading pages and removing stay asynchronous. An append to an open task that nothing is queued
 * behind runs at once, being synchronous throughout; the queue orders the rest.
 */
export class TaskLogFiles {
  readonly #root: string;
  readonly #queues = new Map<number, Promise<unknown>>();
  readonly #writers = new Map<number, Writer>();
  /** Where a batch is encoded before it is written; appends are synchronous, so one suffices. */
  #scratch: Buffer = Buffer.allocUnsafeSlow(SCRATCH_BYTES);

  constructor(root: string) {
    this.#root = root;
  }

  #paths(taskId: number) {
    const dir = join(this.#root, (taskId % 256).toString(16).padStart(2, '0'));
    return { log: join(dir, `${taskId}.log`), index: join(dir, `${taskId}.idx`) };
  }

  /** How many rows the task's log holds. */
  async rowCount(taskId: number): Promise<number> {
    const writer = this.#writers.get(taskId);
    if (writer !== undefined) return writer.count;
    try {
      return Math.floor((await stat(this.#paths(taskId).index)).size / ENTRY_BYTES);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return 0;
      throw error;
    }
  }

  /** How many bytes the task's log holds (its rows' recorded end). */
  async byteCount(taskId: number): Promise<number> {
    const writer = this.#writers.get(taskId);
    if (writer !== undefined) return writer.end;
    const count = await this.rowCount(taskId);
    if (count === 0) return 0;
    const index = await open(this.#paths(taskId).index, 'r');
    try {
      return await readEnd(index, count - 1);
    } finally {
      await index.close();
    }
  }

  /**
   * Appends rows as rows `from`, `from + 1`, … if `from` is the current row count; returns the new
   * count. Another `from` changes nothing (the caller checked it against the count it read).
   * Only the leading rows that keep the log within `limit` are written: a new count below
   * `from + rows.length` says the rest did not fit.
   */
  append(
    taskId: number,
    from: number,
    rows: readonly LogRow[],
    limit: AppendLimit = NO_LIMIT,
  ): Promise<number> {
    const previous = this.#queues.get(taskId);
    // With its files open and nothing queued before it, an append is synchronous from start to
    // end, so nothing can come between: it runs at once, without a place in the queue (the
    // queue and its promises were a tenth of an UpdateLog call's CPU).
    const open = previous === undefined ? this.#writers.get(taskId) : undefined;
    if (open !== undefined) {
      try {
        return Promise.resolve(this.#write(this.#refresh(taskId, open), from, rows, limit));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const next = (previous ?? Promise.resolve()).then(
      () => this.#append(taskId, from, rows, limit),
      () => this.#append(taskId, from, rows, limit),
    );
    this.#queues.set(taskId, next);
    void next.finally(() => {
      if (this.#queues.get(taskId) === next) this.#queues.delete(taskId);
    });
    return next;
  }

  async #append(
    taskId: number,
    from: number,
    rows: readonly LogRow[],
    limit: AppendLimit,
  ): Promise<number> {
    return this.#write(await this.#writer(taskId), from, rows, limit);
  }

  #write(open: Writer, from: number, rows: readonly LogRow[], limit: AppendLimit): number {
    if (from !== open.count || rows.length === 0) return open.count;
    // Each line is encoded straight into the scratch buffer, not joined into one string first:
    // under a flood of batches the joined text (as large as the batch) was garbage the
    // collector spent its time on. Each row's end offset is where its line's bytes end.
    const stamp = timestamper();
    const ends: number[] = new Array(rows.length);
    let bytes = this.#scratch;
    let length = 0;
    for (const [at, row] of rows.entries()) {
      const time = stamp(row.time);
      const content = cut(row.content);
      // UTF-8 takes at most 3 bytes per UTF-16 unit; the stamp and separators are ASCII.
      const most = length + time.length + content.length * 3 + 2;
      if (most > bytes.length) {
        const larger = grow(most);
        bytes.copy(larger, 0, 0, length);
        bytes = larger;
      }
      length += bytes.write(time, length, 'latin1');
      bytes[length++] = 0x20;
      length += bytes.write(content, length, 'utf8');
      bytes[length++] = 0x0a;
      ends[at] = length;
    }
    this.#scratch = bytes;
    const offsets = Buffer.allocUnsafe(rows.length * ENTRY_BYTES);
    // Rows are kept while the log stays within the limit; the first that would pass it and every
    // row after it are left out.
    const fitting = Math.max(0, Math.min(rows.length, limit.rows - open.count));
    let kept = 0;
    let offset = open.end;
    for (let at = 0; at < fitting; at++) {
      const next = open.end + (ends[at] ?? 0);
      if (next > limit.bytes) break;
      offset = next;
      writeOffset(offsets, offset, at * ENTRY_BYTES);
      kept++;
    }
    // Positioned writes: bytes a crash left past the last recorded offset are overwritten.
    writeAll(open.log.fd, bytes, offset - open.end, open.end);
    writeAll(open.index.fd, offsets, kept * ENTRY_BYTES, open.count * ENTRY_BYTES);
    // A batch of very long rows does not keep its buffer.
    if (bytes.length > MAX_SCRATCH_BYTES) this.#scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
    open.count += kept;
    open.end = offset;
    return open.count;
  }

  /**
   * The open files of a task being written, with its row count and end offset in memory, so an
   * append is two positioned writes. Kept for the most recent tasks; `close` releases one.
   */
  async #writer(taskId: number): Promise<Writer> {
    const known = this.#writers.get(taskId);
    if (known !== undefined) return this.#refresh(taskId, known);
    const paths = this.#paths(taskId);
    await mkdir(dirname(paths.log), { recursive: true });
    const [index, log] = await Promise.all([openFile(paths.index), openFile(paths.log)]);
    const count = Math.floor((await index.stat()).size / ENTRY_BYTES);
    const writer: Writer = {
      index,
      log,
      count,
      end: count === 0 ? 0 : await readEnd(index, count - 1),
    };
    this.#writers.set(taskId, writer);
    if (this.#writers.size > MAX_OPEN_WRITERS) {
      const [oldest] = this.#writers.keys();
      if (oldest !== undefined) await this.close(oldest);
    }
    return writer;
  }

  /** An open writer, made the most recent and brought up to date with the files. */
  #refresh(taskId: number, known: Writer): Writer {
    this.#writers.delete(taskId);
    this.#writers.set(taskId, known);
    // Another replica may have appended since (a load balancer spreads one runner's calls):
    // one fstat tells, and the count and end are read again then.
    const count = Math.floor(fstatSync(known.index.fd).size / ENTRY_BYTES);
    if (count !== known.count) {
      known.count = count;
      known.end = count === 0 ? 0 : readEndSync(known.index.fd, count - 1);
    }
    return known;
  }

  /** Closes the files of a task kept open for writing (its log is sealed, or evicted). */
  async close(taskId: number): Promise<void> {
    const writer = this.#writers.get(taskId);
    if (writer === undefined) return;
    this.#writers.delete(taskId);
    await Promise.all([writer.index.close(), writer.log.close()]);
  }

  /** Closes every file kept open. */
  async closeAll(): Promise<void> {
    for (const taskId of [...this.#writers.keys()]) await this.close(taskId);
  }

  /** Rows `from` … `from + limit - 1` (fewer at the end), as stored lines without the newline. */
  async readRows(taskId: number, from: number, limit: number): Promise<string[]> {
    const total = await this.rowCount(taskId);
    const first = Math.max(0, from);
    const last = Math.min(total, first + Math.max(0, limit));
    if (first >= last) return [];
    const paths = this.#paths(taskId);
    const index = await open(paths.index, 'r');
    const log = await open(paths.log, 'r');
    try {
      const entries = Buffer.alloc((last - first + 1) * ENTRY_BYTES);
      const startEntry = first === 0 ? 0 : first - 1;
      const read = (last - startEntry) * ENTRY_BYTES;
      await index.read(entries, 0, read, startEntry * ENTRY_BYTES);
      const ends = Array.from({ length: last - startEntry }, (_, at) =>
        Number(entries.readBigUInt64BE(at * ENTRY_BYTES)),
      );
      const starts = first === 0 ? [0, ...ends] : ends;
      const begin = starts[0] ?? 0;
      const end = ends[ends.length - 1] ?? 0;
      const bytes = Buffer.alloc(end - begin);
      await log.read(bytes, 0, bytes.length, begin);
      const rowEnds = first === 0 ? ends : ends.slice(1);
      const lines: string[] = [];
      let at = 0;
      for (const rowEnd of rowEnds) {
        lines.push(bytes.subarray(at, rowEnd - begin - 1).toString('utf8'));
        at = rowEnd - begin;
      }
      return lines;
    } finally {
      await Promise.all([index.close(), log.close()]);
    }
  }

  /**
   * A window of rows for a page: from row `from` forwards, or ending just before row `before`
   * (the newest rows when `before` is the row count), at most `maxRows` rows and `maxBytes` of
   * stored text, and always at least one row when the log has any there. Only the window's
   * offsets and bytes are read, so a page of a log of any size costs what its window holds; its
   * rows are read and decoded when first asked for, so a page whose rows were built before
   * (keyed by the window's `span`) reads only offsets.
   */
  async readWindow(
    taskId: number,
    at: { readonly from: number } | { readonly before: number },
    maxRows: number,
    maxBytes: number,
  ): Promise<ReturnType<typeof readLater>> {
    const total = await this.rowCount(taskId);
    const clamp = (row: number) => Math.min(Math.max(0, Math.floor(row)), total);
    const forward = 'from' in at;
    const first = forward ? clamp(at.from) : Math.max(0, clamp(at.before) - maxRows);
    const last = forward ? Math.min(total, first + maxRows) : clamp(at.before);
    if (first >= last) return readLater(undefined, first, total, [], 0);
    const paths = this.#paths(taskId);
    const index = await open(paths.index, 'r');
    let ends: RowEnds;
    try {
      ends = await readEnds(index, first, last);
    } finally {
      await index.close();
    }
    // Keep rows from the window's near end while they fit; the first one always does. Only the
    // offsets walked are decoded: a window cut by bytes reads a few of its thousands of rows.
    let keepFirst = first;
    let keepLast = last;
    if (forward) {
      const start = ends.endOf(first - 1);
      keepLast = first + 1;
      while (keepLast < last && ends.endOf(keepLast) - start <= maxBytes) keepLast++;
    } else {
      const end = ends.endOf(last - 1);
      keepFirst = last - 1;
      while (keepFirst > first && end - ends.endOf(keepFirst - 2) <= maxBytes) keepFirst--;
    }
    const begin = ends.endOf(keepFirst - 1);
    const offsets: number[] = [];
    for (let row = keepFirst; row < keepLast; row++) offsets.push(ends.endOf(row) - begin);
    return readLater(paths.log, keepFirst, total, offsets, begin);
  }

  /**
   * The whole log as stored (`<time> <content>\n` per row), streamed from its file up to the
   * last recorded row: never read into memory, whatever its size.
   */
  async rawLog(taskId: number): Promise<Readable> {
    const total = await this.rowCount(taskId);
    if (total === 0) return Readable.from([]);
    const paths = this.#paths(taskId);
    const index = await open(paths.index, 'r');
    let end: number;
    try {
      end = await readEnd(index, total - 1);
    } finally {
      await index.close();
    }
    // Opened before it is streamed: a log removed meanwhile is an error here, not mid-answer.
    const log = await open(paths.log, 'r');
    return log.createReadStream({ start: 0, end: end - 1, autoClose: true });
  }

  /** Deletes a task's log (retention). */
  async remove(taskId: number): Promise<void> {
    await this.close(taskId);
    const paths = this.#paths(taskId);
    await Promise.all([rm(paths.log, { force: true }), rm(paths.index, { force: true })]);
  }
}

async function readEnd(index: FileHandle, row: number): Promise<number> {
  const entry = Buffer.alloc(ENTRY_BYTES);
  await index.read(entry, 0, ENTRY_BYTES, row * ENTRY_BYTES);
  return Number(entry.readBigUInt64BE(0));
}

/** Where rows end in the log (the offset past each row's newline), decoded as they are asked. */
type RowEnds = { endOf(row: number): number };

/**
 * The end offsets of rows `first - 1` … `last - 1`, from one read of the offsets file; the end of
 * row -1 is 0. Offsets are decoded from their two 32-bit halves when asked: a `BigInt` for each
 * of a window's thousands of rows was a third of a log page's time on the request thread.
 */
async function readEnds(index: FileHandle, first: number, last: number): Promise<RowEnds> {
  const from = first === 0 ? 0 : first - 1;
  const entries = Buffer.alloc((last - from) * ENTRY_BYTES);
  await index.read(entries, 0, entries.length, from * ENTRY_BYTES);
  return {
    endOf: (row) => {
      if (row < 0) return 0;
      const at = (row - from) * ENTRY_BYTES;
      return entries.readUInt32BE(at) * 2 ** 32 + entries.readUInt32BE(at + 4);
    },
  };
}

/**
 * A window whose rows are read from the log and decoded when first asked for: `offsets` are
 * where each row ends after `start`, past its newline. `span` places the rows in the log, which
 * within an attempt is only appended to, so the span and the rows' place name the rows for good,
 * and a page built from them before reads none of their bytes.
 */
function readLater(
  path: string | undefined,
  from: number,
  total: number,
  offsets: readonly number[],
  start: number,
) {
  const length = offsets.at(-1) ?? 0;
  let rows: Promise<string[]> | undefined;
  const read = async (): Promise<string[]> => {
    if (path === undefined || length === 0) return [];
    // The offsets were read before the rows: a log removed or started afresh since (a re-run,
    // retention) reads short or not at all, and shows no rows rather than whatever was there.
    const bytes = Buffer.alloc(length);
    let got = 0;
    try {
      const log = await open(path, 'r');
      try {
        ({ bytesRead: got } = await log.read(bytes, 0, length, start));
      } finally {
        await log.close();
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (got < length) return [];
    const decoded: string[] = [];
    let at = 0;
    for (const end of offsets) {
      decoded.push(bytes.toString('utf8', at, end - 1));
      at = end;
    }
    return decoded;
  };
  return {
    from,
    total,
    count: offsets.length,
    span: { start, end: start + length },
    readRows: (): Promise<string[]> => {
      rows ??= read();
      return rows;
    },
  };
}

function readEndSync(fd: number, row: number): number {
  const entry = Buffer.alloc(ENTRY_BYTES);
  readSync(fd, entry, 0, ENTRY_BYTES, row * ENTRY_BYTES);
  return Number(entry.readBigUInt64BE(0));
}

/** Writes the first `length` bytes at `position` (a regular file takes them in one call). */
function writeAll(fd: number, bytes: Buffer, length: number, position: number): void {
  let written = 0;
  while (written < length) {
    written += writeSync(fd, bytes, written, length - written, position + written);
  }
}

/** An encoding buffer for a batch that needs `needed` bytes at most. */
function grow(needed: number): Buffer {
  // A power of two, so that batches a little larger than the last one reuse it.
  return Buffer.allocUnsafeSlow(Math.max(2 ** Math.ceil(Math.log2(needed)), SCRATCH_BYTES));
}

/**
 * `Date#toISOString` for rows of one batch, reusing the text up to the second: a batch's rows
 * mostly share it, and formatting every row's time whole was the largest cost of an append.
 */
function timestamper(): (time: Date) => string {
  let second = Number.NaN;
  let prefix = '';
  return (time) => {
    const ms = time.getTime();
    const at = Math.floor(ms / 1000);
    if (at !== second) {
      // toISOString throws on an invalid date, as the whole format did.
      const iso = time.toISOString();
      // Years outside 0000–9999 are written with a sign and six digits: not cached.
      if (iso.length !== 24) return iso;
      prefix = iso.slice(0, 20);
      second = at;
    }
    return `${prefix}${String(ms - at * 1000).padStart(3, '0')}Z`;
  };
}

/** An end offset as a big-endian uint64, without a BigInt per row (offsets stay below 2^53). */
function writeOffset(into: Buffer, value: number, at: number): void {
  into.writeUInt32BE(Math.floor(value / 2 ** 32), at);
  into.writeUInt32BE(value % 2 ** 32, at + 4);
}

function cut(content: string): string {
  // A UTF-8 character is at most 3 bytes per UTF-16 unit: most rows need no count at all.
  if (content.length * 3 <= MAX_ROW_BYTES) return content;
  if (Buffer.byteLength(content, 'utf8') <= MAX_ROW_BYTES) return content;
  const bytes = Buffer.from(content, 'utf8');
  // Cut before the character the limit falls in: decoding its first bytes alone would store a
  // U+FFFD in its place, and the row would end up to 2 bytes over the limit.
  let end = MAX_ROW_BYTES;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.toString('utf8', 0, end);
}
