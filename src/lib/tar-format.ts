/**
 * The tar format (POSIX ustar with pax extended headers) as Kiln's dumps use it: enough for
 * regular files and directories with any path length. Written here because the one place allowed
 * to start processes is the git layer, and a dump must not depend on a `tar` binary. The writer
 * and the reader are tar-writer.ts and tar-reader.ts.
 */

/** Bytes, as a stream or a list of buffers. */
export type Chunks = AsyncIterable<Buffer | Uint8Array> | Iterable<Buffer | Uint8Array>;

export const BLOCK = 512;

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

export function padding(size: number): Buffer {
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
