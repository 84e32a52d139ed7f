import { constants, createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename as renameFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { errorCode } from '../lib/thrown.ts';
import { copyFiles } from './file-copy.ts';
import { writeGathered } from './gathered-write.ts';

/** A blob's place: path segments of lower-case letters, digits and dashes only. */
export type BlobKey = readonly string[];

const SEGMENT = /^[0-9a-z-]{1,64}$/;

/**
 * Files under one root, named by keys the caller builds from ids and hashes, never from what a
 * client sent: a key segment is checked to be `[0-9a-z-]`, so no key reaches outside the root.
 * Writes are positioned (a chunk lands at its offset, whatever order chunks arrive in) and stream
 * straight to the file; reads stream from it. Nothing here holds a whole blob in memory.
 */
export class BlobDirectory {
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  #path(key: BlobKey): string {
    if (key.length === 0 || !key.every((segment) => SEGMENT.test(segment))) {
      throw new Error(`invalid blob key ${key.join('/')}`);
    }
    return join(this.#root, ...key);
  }

  /**
   * Writes `source` at `offset` of the blob at `key` (created when missing), at most `length`
   * bytes: it stops reading at the first chunk that would pass them. Returns the bytes
   * received, so a caller learns of a body longer (more than `length`) or shorter than it said.
   */
  async writeAt(
    key: BlobKey,
    offset: number,
    length: number,
    source: AsyncIterable<Uint8Array>,
  ): Promise<number> {
    const path = this.#path(key);
    await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
    let received = 0;
    async function* limited() {
      for await (const chunk of source) {
        received += chunk.byteLength;
        if (received > length) return;
        yield chunk;
      }
    }
    // Created when missing and never truncated: parts of one blob may be written at once.
    const file = await open(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    try {
      await writeGathered(file, offset, limited());
    } finally {
      await file.close();
    }
    return received;
  }

  /** The size of the blob at `key`, or undefined when there is none. */
  async size(key: BlobKey): Promise<number | undefined> {
    try {
      return (await stat(this.#path(key))).size;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** A stream of the blob at `key` (an `ENOENT` error on the stream when it is missing). */
  read(key: BlobKey): Readable {
    return createReadStream(this.#path(key), { highWaterMark: 1024 * 1024 });
  }

  /** The blobs at `keys` in order, to `sink` in two reused buffers (see `copyFiles`). */
  copy(keys: readonly BlobKey[], sink: (bytes: Buffer) => Promise<void>): Promise<void> {
    return copyFiles(
      keys.map((key) => this.#path(key)),
      0,
      sink,
    );
  }

  /** Moves the blob at `from` to `to`, replacing any there. */
  async rename(from: BlobKey, to: BlobKey): Promise<void> {
    const target = this.#path(to);
    await mkdir(join(target, '..'), { recursive: true, mode: 0o700 });
    await renameFile(this.#path(from), target);
  }

  /** The names in the folder at `key` (none when there is no such folder). */
  async list(key: BlobKey): Promise<string[]> {
    try {
      return await readdir(this.#path(key));
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw error;
    }
  }

  /** Removes the blob or folder at `key`, if any. */
  async remove(key: BlobKey): Promise<void> {
    await rm(this.#path(key), { recursive: true, force: true });
  }
}
