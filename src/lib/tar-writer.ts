import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable, type Writable } from 'node:stream';
import { BLOCK, type Chunks, entryHeader, padding } from './tar-format.ts';

const ZEROS = Buffer.alloc(BLOCK * 2);

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
