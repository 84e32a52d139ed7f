import { Readable } from 'node:stream';
import { BLOCK, type Chunks, padding, type TarEntry } from './tar-format.ts';

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

/** Entries that are neither a regular file nor a directory, by their tar type flag. */
const SPECIAL_TYPES: Readonly<Record<string, ReadEntry['type']>> = {
  '1': 'hardlink',
  '2': 'symlink',
  '3': 'device',
  '4': 'device',
  '6': 'fifo',
  '7': 'file',
};

/** An entry as read: a file, a directory, or something else named for the caller to refuse. */
export type ReadEntry = Omit<TarEntry, 'type'> & {
  readonly type: TarEntry['type'] | 'symlink' | 'hardlink' | 'device' | 'fifo';
  readonly content: AsyncIterable<Buffer>;
};

/**
 * Reads a tar stream entry by entry. The caller must consume each file's `content` before asking
 * for the next entry. Links, devices and FIFOs are yielded (with no content) for the caller to
 * skip or refuse; nothing here creates anything.
 */
export async function* readTar(source: Chunks): AsyncGenerator<ReadEntry> {
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
    if (type === 'g' || type === 'K') {
      // A global pax header, or GNU tar's long link target: nothing a reader here follows.
      await reader.take(size + padding(size).length);
      continue;
    }
    if (type === 'L') {
      // GNU tar's long name: the next header's path.
      paxPath = (await reader.take(size)).toString('utf8').replace(/\0+$/, '');
      await reader.take(padding(size).length);
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
    } else if (type === '0' || type === '\0' || SPECIAL_TYPES[type] !== undefined) {
      const kind = SPECIAL_TYPES[type] ?? 'file';
      const state = { left: size };
      const content = (async function* () {
        while (state.left > 0) {
          const piece = await reader.take(Math.min(state.left, 1 << 20));
          if (piece.length === 0) throw new TarFormatError('the archive ends inside a file');
          state.left -= piece.length;
          yield piece;
        }
      })();
      yield { ...entry, type: kind, size, content };
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
