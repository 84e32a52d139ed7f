import { mkdir, open, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** A log line as the runner sends it. */
export type LogRow = { readonly time: Date; readonly content: string };

/** Rows longer than this are cut (Gitea's limit); the runner never needs more. */
export const MAX_ROW_BYTES = 64 * 1024;

/** Bytes per entry of the offsets file: one big-endian uint64 end offset per row. */
const ENTRY_BYTES = 8;

/**
 * Task logs on disk, one pair of files per task under `root/<id % 256 as 2 hex>/`:
 * `<id>.log` holds the rows (`<RFC 3339 time> <content>\n`), `<id>.idx` the end offset of each
 * row. The row count is the offsets file's size over 8, and any page of rows is two positioned
 * reads (its offsets, then its bytes), so the last page of a 100,000-line log costs what the
 * first does and the database is never asked per line.
 *
 * Appends to one task are serialised in this process; a runner sends one log request at a time
 * per task. The offsets file is written after the rows, so a crash in between leaves bytes past
 * the last recorded offset, which the next append overwrites.
 */
export class TaskLogStore {
  readonly #root: string;
  readonly #queues = new Map<number, Promise<unknown>>();

  constructor(root: string) {
    this.#root = root;
  }

  #paths(taskId: number) {
    const dir = join(this.#root, (taskId % 256).toString(16).padStart(2, '0'));
    return { log: join(dir, `${taskId}.log`), index: join(dir, `${taskId}.idx`) };
  }

  /** How many rows the task's log holds. */
  async rowCount(taskId: number): Promise<number> {
    try {
      return Math.floor((await stat(this.#paths(taskId).index)).size / ENTRY_BYTES);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
  }

  /**
   * Appends rows as rows `from`, `from + 1`, … if `from` is the current row count; returns the new
   * count. Another `from` changes nothing (the caller checked it against the count it read).
   */
  append(taskId: number, from: number, rows: readonly LogRow[]): Promise<number> {
    const previous = this.#queues.get(taskId) ?? Promise.resolve();
    const next = previous.then(
      () => this.#append(taskId, from, rows),
      () => this.#append(taskId, from, rows),
    );
    this.#queues.set(taskId, next);
    void next.finally(() => {
      if (this.#queues.get(taskId) === next) this.#queues.delete(taskId);
    });
    return next;
  }

  async #append(taskId: number, from: number, rows: readonly LogRow[]): Promise<number> {
    const paths = this.#paths(taskId);
    await mkdir(dirname(paths.log), { recursive: true });
    const count = await this.rowCount(taskId);
    if (from !== count || rows.length === 0) return count;
    const index = await open(paths.index, 'a+');
    const log = await open(paths.log, 'a+').then(async (handle) => {
      await handle.close();
      return open(paths.log, 'r+');
    });
    try {
      let offset = count === 0 ? 0 : await readEnd(index, count - 1);
      const offsets = Buffer.alloc(rows.length * ENTRY_BYTES);
      const chunks: Buffer[] = [];
      rows.forEach((row, at) => {
        const line = Buffer.from(`${row.time.toISOString()} ${cut(row.content)}\n`, 'utf8');
        chunks.push(line);
        offset += line.length;
        offsets.writeBigUInt64BE(BigInt(offset), at * ENTRY_BYTES);
      });
      const bytes = Buffer.concat(chunks);
      const start = offset - bytes.length;
      await log.write(bytes, 0, bytes.length, start);
      await log.truncate(offset);
      await index.truncate(count * ENTRY_BYTES);
      await index.write(offsets, 0, offsets.length, count * ENTRY_BYTES);
      return count + rows.length;
    } finally {
      await Promise.all([index.close(), log.close()]);
    }
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

  /** Deletes a task's log (retention). */
  async remove(taskId: number): Promise<void> {
    const paths = this.#paths(taskId);
    await Promise.all([rm(paths.log, { force: true }), rm(paths.index, { force: true })]);
  }
}

async function readEnd(index: Awaited<ReturnType<typeof open>>, row: number): Promise<number> {
  const entry = Buffer.alloc(ENTRY_BYTES);
  await index.read(entry, 0, ENTRY_BYTES, row * ENTRY_BYTES);
  return Number(entry.readBigUInt64BE(0));
}

function cut(content: string): string {
  if (Buffer.byteLength(content, 'utf8') <= MAX_ROW_BYTES) return content;
  return Buffer.from(content, 'utf8').subarray(0, MAX_ROW_BYTES).toString('utf8');
}
