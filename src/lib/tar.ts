import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable, type Writable } from 'node:stream';

/**
 * A small tar (POSIX ustar with pax extended headers) writer and reader: enough for regular files
 * and directories with any path length, which is what Kiln's dumps hold. Written here because the
 * one place allowed to start processes is the git layer, and a dump must not depend on a `tar`
 * binary being installed.
 */

/** Bytes, as a stream or a list of buffers. */
export type Chunks = AsyncIterable<Buffer | Uint8Array> | Iterable<Buffer | Uint8Array>;

const BLOCK = 512;
const ZEROS = Buffer.alloc(BLOCK * 2);

export type TarEntry = {
  /** Relative path with `/` separators; directories end without a slash. */
  readonly path: string;
  readonly type: 'file' | 'directory';
  readonly mode: number;
  readonly size: number;
  readonly mtimeMs: number;
};

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, type: string, mode: number, size: number, mtimeMs: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(mode & 0o7777, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(Math.floor(mtimeMs / 1000), 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write(type, 156, 'ascii');
  block.write('ustar\u000000', 257, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/** A pax record `"<len> path=<value>\n"`, where `<len>` counts the whole record, itself included. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length += 1;
  return `${length}${body}`;
}

function padding(size: number): Buffer {
  const rest = size % BLOCK;
  return rest === 0 ? Buffer.alloc(0) : Buffer.alloc(BLOCK - rest);
}

/** The header blocks of one entry (a pax header first when the path does not fit ustar's field). */
export function entryHeader(entry: TarEntry): Buffer {
  const name = entry.type === 'directory' ? `${entry.path}/` : entry.path;
  const type = entry.type === 'directory' ? '5' : '0';
  const size = entry.type === 'directory' ? 0 : entry.size;
  if (Buffer.byteLength(name) <= 100) return header(name, type, entry.mode, size, entry.mtimeMs);
  const pax = Buffer.from(paxRecord('path', name));
  return Buffer.concat([
    header('././@PaxHeader', 'x', 0o644, pax.length, entry.mtimeMs),
    pax,
    padding(pax.length),
    header(name.slice(0, 100), type, entry.mode, size, entry.mtimeMs),
  ]);
}

/** Where a tar archive goes. */
export type TarSink = {
  write(chunk: Buffer): Promise<void> | void;
  /** Whether `write` is done with a chunk when it returns, so its buffer may be reused. */
  readonly copiesAtOnce: boolean;
};

/** A stream, honouring its back-pressure. */
export function streamSink(out: Writable): TarSink {
  return {
    copiesAtOnce: false,
    async write(chunk) {
      if (out.write(chunk)) return;
      await new Promise<void>((resolve, reject) => {
        const onDrain = () => {
          out.off('error', onError);
          resolve();
        };
        const onError = (error: Error) => {
          out.off('drain', onDrain);
          reject(error);
        };
        out.once('drain', onDrain);
        out.once('error', onError);
      });
    },
  };
}

/**
 * An open file, written synchronously: for a command-line process whose only work is the
 * archive, the fastest way through Node (no thread-pool round trip per chunk, one reused buffer).
 * Never for a server's event loop.
 */
export function fileSink(fd: number): TarSink {
  return {
    copiesAtOnce: true,
    write(chunk) {
      let offset = 0;
      while (offset < chunk.length) offset += writeSync(fd, chunk, offset);
    },
  };
}

const COPY_CHUNK = 1 << 20;

/** Writes tar entries to a sink. */
export class TarWriter {
  readonly #sink: TarSink;
  #written = 0;
  /** Reused for every chunk when the sink copies at once (see fileFromDisk). */
  readonly #copyBuffer = Buffer.allocUnsafe(COPY_CHUNK);

  constructor(sink: TarSink | Writable) {
    this.#sink = 'copiesAtOnce' in sink ? sink : streamSink(sink);
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.#written;
  }

  async #write(chunk: Buffer): Promise<void> {
    if (chunk.length === 0) return;
    this.#written += chunk.length;
    await this.#sink.write(chunk);
  }

  /**
   * A file copied from disk as it is now: `size` bytes of it (the size it had when listed). A
   * file that turns out shorter is an error, since the archive would be corrupt from there on.
   */
  async fileFromDisk(
    path: string,
    absolute: string,
    size: number,
    mode: number,
    mtimeMs: number,
  ): Promise<void> {
    await this.#write(entryHeader({ path, type: 'file', mode, size, mtimeMs }));
    // A synchronous sink means a process with nothing else to do: reading synchronously too
    // spares a thread-pool round trip per chunk.
    const sync = this.#sink.copiesAtOnce;
    const handle = sync ? undefined : await open(absolute, 'r');
    const fd = sync ? openSync(absolute, 'r') : -1;
    try {
      let left = size;
      while (left > 0) {
        const buffer = sync ? this.#copyBuffer : Buffer.allocUnsafe(COPY_CHUNK);
        const length = Math.min(left, COPY_CHUNK);
        const position = size - left;
        const bytesRead = handle
          ? (await handle.read(buffer, 0, length, position)).bytesRead
          : readSync(fd, buffer, 0, length, position);
        if (bytesRead === 0) throw new Error(`${path} shrank while it was being archived`);
        await this.#write(buffer.subarray(0, bytesRead));
        left -= bytesRead;
      }
    } finally {
      if (handle) await handle.close();
      else closeSync(fd);
    }
    await this.#write(padding(size));
  }

  async directory(path: string, mtimeMs = Date.now()): Promise<void> {
    await this.#write(entryHeader({ path, type: 'directory', mode: 0o755, size: 0, mtimeMs }));
  }

  /** A file from memory. */
  async file(path: string, content: Buffer | string, mode = 0o644): Promise<void> {
    const data = typeof content === 'string' ? Buffer.from(content) : content;
    await this.fileFrom(path, data.length, Readable.from([data]), mode);
  }

  /**
   * A file from a stream of exactly `size` bytes. A stream that ends early or runs long is an
   * error: the archive would be corrupt from here on.
   */
  async fileFrom(
    path: string,
    size: number,
    content: Chunks,
    mode = 0o644,
    mtimeMs = Date.now(),
  ): Promise<void> {
    await this.#write(entryHeader({ path, type: 'file', mode, size, mtimeMs }));
    let written = 0;
    for await (const chunk of content) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      written += buffer.length;
      if (written > size) throw new Error(`${path} grew while it was being archived`);
      await this.#write(buffer);
    }
    if (written !== size) throw new Error(`${path} shrank while it was being archived`);
    await this.#write(padding(size));
  }

  /** The two zero blocks that end an archive. Does not end the stream. */
  async finish(): Promise<void> {
    await this.#write(ZEROS);
  }
}

/** Thrown for an archive that is not a tar this reader understands. */
export class TarFormatError extends Error {}

function readOctal(block: Buffer, offset: number, width: number): number {
  const text = block
    .subarray(offset, offset + width)
    .toString('ascii')
    .replace(/[\0 ]+$/, '')
    .trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarFormatError('a tar header field is not octal');
  return Number.parseInt(text, 8);
}

function readString(block: Buffer, offset: number, width: number): string {
  const field = block.subarray(offset, offset + width);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? width : end).toString('utf8');
}

function checksumOk(block: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 32 : block[i]!;
  return sum === readOctal(block, 148, 8);
}

function parsePax(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space === -1) throw new TarFormatError('a pax record has no length');
    const length = Number.parseInt(data.subarray(offset, space).toString('ascii'), 10);
    if (!Number.isInteger(length) || length <= 0) throw new TarFormatError('bad pax record');
    const record = data.subarray(space + 1, offset + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals > 0) records.set(record.slice(0, equals), record.slice(equals + 1));
    offset += length;
  }
  return records;
}

/** Buffers a byte stream so that exact amounts can be taken from it. */
class ByteReader {
  readonly #source: AsyncIterator<Buffer | Uint8Array>;
  #chunks: Buffer[] = [];
  #buffered = 0;

  constructor(source: Chunks) {
    this.#source = (async function* () {
      yield* source;
    })();
  }

  /** Up to `size` bytes, fewer only at the end of the stream. */
  async take(size: number): Promise<Buffer> {
    while (this.#buffered < size) {
      const next = await this.#source.next();
      if (next.done) break;
      const buffer = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
      this.#chunks.push(buffer);
      this.#buffered += buffer.length;
    }
    const all = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    const taken = all.subarray(0, Math.min(size, all.length));
    const rest = all.subarray(taken.length);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#buffered = rest.length;
    return taken;
  }
}

/**
 * Reads a tar stream entry by entry. The caller must consume each file's `content` before asking
 * for the next entry.
 */
export async function* readTar(
  source: Chunks,
): AsyncGenerator<TarEntry & { content: AsyncIterable<Buffer> }> {
  const reader = new ByteReader(source);
  let paxPath: string | undefined;
  for (;;) {
    const block = await reader.take(BLOCK);
    if (block.length === 0) return;
    if (block.length < BLOCK) throw new TarFormatError('the archive ends inside a header');
    if (block.every((byte) => byte === 0)) return;
    if (!checksumOk(block)) throw new TarFormatError('a tar header has a bad checksum');
    const type = String.fromCharCode(block[156]!);
    const size = readOctal(block, 124, 12);
    if (type === 'x') {
      const pax = parsePax(await reader.take(size));
      await reader.take(padding(size).length);
      paxPath = pax.get('path');
      continue;
    }
    const prefix = readString(block, 345, 155);
    const name = readString(block, 0, 100);
    const path = (paxPath ?? (prefix ? `${prefix}/${name}` : name)).replace(/\/+$/, '');
    paxPath = undefined;
    const entry = {
      path,
      mode: readOctal(block, 100, 8),
      mtimeMs: readOctal(block, 136, 12) * 1000,
    };
    if (type === '5') {
      yield { ...entry, type: 'directory', size: 0, content: Readable.from([]) };
    } else if (type === '0' || type === '\0') {
      const state = { left: size };
      const content = (async function* () {
        while (state.left > 0) {
          const piece = await reader.take(Math.min(state.left, 1 << 20));
          if (piece.length === 0) throw new TarFormatError('the archive ends inside a file');
          state.left -= piece.length;
          yield piece;
        }
      })();
      yield { ...entry, type: 'file', size, content };
      // Whatever the caller left unread is skipped, so the next header is found where it is.
      while (state.left > 0) {
        const skipped = await reader.take(Math.min(state.left, 1 << 20));
        if (skipped.length === 0) throw new TarFormatError('the archive ends inside a file');
        state.left -= skipped.length;
      }
      await reader.take(padding(size).length);
    } else {
      throw new TarFormatError(`unsupported tar entry type ${JSON.stringify(type)} for ${path}`);
    }
  }
}
