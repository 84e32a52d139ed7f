import { constants } from 'node:fs';
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Invalid } from '../domain/errors.ts';
import { errorCode } from '../lib/thrown.ts';
import { copyFiles } from './file-copy.ts';
import { writeGathered } from './gathered-write.ts';

/** A byte range of a stored archive, both ends included. */
type ByteRange = { readonly start: number; readonly end: number };

/** The chunks of `source`, failing once they pass `length` bytes; `seen` counts them. */
async function* guarded(source: Readable, length: number, counted: { seen: number }) {
  for await (const chunk of source as AsyncIterable<Buffer>) {
    counted.seen += chunk.byteLength;
    if (counted.seen > length) {
      throw new Invalid(`the body holds more than the ${length} bytes its range names`);
    }
    yield chunk;
  }
}

/**
 * Cache archives as files under `root/<id % 256 as 2 hex>/<id>.tar` (a few hundred entries per
 * folder even with a hundred thousand entries). The data directory is shared by replicas, so
 * any of them may receive any part of an upload: each part is a positioned write into the one
 * file, and parts may arrive in any order and at once.
 */
export class CacheBlobFiles {
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  #shardDir(shard: number): string {
    return join(this.#root, shard.toString(16).padStart(2, '0'));
  }

  #path(id: number): string {
    return join(this.#shardDir(id % 256), `${id}.tar`);
  }

  /** Writes `length` bytes of `source` at `offset`; rejects when it carries more or fewer. */
  async write(id: number, offset: number, length: number, source: Readable): Promise<void> {
    const path = this.#path(id);
    await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
    // Created without truncating, so that parallel first parts never erase each other.
    const file = await open(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    const guard = { seen: 0 };
    try {
      await writeGathered(file, offset, guarded(source, length, guard));
    } catch (error) {
      // A client that goes away mid-part is the client's failure, not the server's.
      const code = errorCode(error);
      if (code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET' || code === 'ABORT_ERR') {
        throw new Invalid('the upload ended before its range did', { cause: error });
      }
      throw error;
    } finally {
      await file.close();
    }
    if (guard.seen !== length) {
      throw new Invalid(`the body holds ${guard.seen} bytes where its range names ${length}`);
    }
  }

  /** Bytes written so far (0 when none). */
  async size(id: number): Promise<number> {
    try {
      return (await stat(this.#path(id))).size;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return 0;
      throw error;
    }
  }

  /** The archive or a range of it, to `sink` in two reused buffers (see `copyFiles`). */
  copy(id: number, range: ByteRange | undefined, sink: (bytes: Buffer) => Promise<void>) {
    const start = range?.start ?? 0;
    const length = range ? range.end - range.start + 1 : undefined;
    return copyFiles([this.#path(id)], start, sink, length);
  }

  /** Deletes the archive, if any. */
  async remove(id: number): Promise<void> {
    await rm(this.#path(id), { force: true });
  }

  /** The ids of the archives in one shard's folder. */
  async idsInShard(shard: number): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.#shardDir(shard));
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw error;
    }
    return names.flatMap((name) => {
      const match = /^(\d{1,15})\.tar$/.exec(name);
      return match ? [Number(match[1])] : [];
    });
  }
}
