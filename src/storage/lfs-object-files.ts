import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Invalid, TooLarge } from '../domain/errors.ts';
import { copyFiles } from './file-copy.ts';
import { writeGathered } from './gathered-write.ts';

const OID = /^[0-9a-f]{64}$/;

/** Temporary files of uploads; hidden, so a dump does not carry a half-written object. */
const TEMPORARY = '.tmp';

/**
 * Git LFS objects under one root, content-addressed as `ab/cd/<oid>`. An upload streams to a
 * temporary file while it is hashed and is renamed into place only once its SHA-256 is the oid
 * it claims: a reader never sees a partial or a wrong object, and two replicas writing the
 * same object leave the same bytes whichever rename lands last. Nothing is held in memory.
 */
export class LfsObjectFiles {
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  /**
   * The object's path. The oid is checked here again, where it becomes a path: nothing but 64
   * lower-case hex digits ever reaches the file system.
   */
  #path(oid: string): string {
    if (!OID.test(oid)) throw new Invalid('Invalid object ID.');
    return join(this.#root, oid.slice(0, 2), oid.slice(2, 4), oid);
  }

  async size(oid: string): Promise<number | undefined> {
    try {
      return (await stat(this.#path(oid))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async write(
    oid: string,
    source: AsyncIterable<Uint8Array>,
    limits: {
      readonly declaredSize?: number | undefined;
      readonly maxSize?: number | undefined;
      readonly beforePlacing?: ((size: number) => Promise<void>) | undefined;
    },
  ): Promise<number> {
    const target = this.#path(oid);
    const temporary = join(this.#root, TEMPORARY, `${randomBytes(12).toString('hex')}`);
    await mkdir(join(this.#root, TEMPORARY), { recursive: true, mode: 0o700 });
    const hash = createHash('sha256');
    const most = Math.min(limits.declaredSize ?? Infinity, limits.maxSize ?? Infinity);
    let received = 0;
    async function* hashed() {
      for await (const chunk of source) {
        received += chunk.byteLength;
        // Past what was declared (or allowed) the upload is wrong already: stop reading.
        if (received > most) return;
        hash.update(chunk);
        yield chunk;
      }
    }
    try {
      const file = await open(temporary, 'wx', 0o600);
      try {
        await writeGathered(file, 0, hashed());
      } finally {
        await file.close();
      }
      if (limits.maxSize !== undefined && received > limits.maxSize) {
        throw new TooLarge(`The object is larger than ${limits.maxSize} bytes.`);
      }
      if (limits.declaredSize !== undefined && received !== limits.declaredSize) {
        throw new Invalid(`Expected ${limits.declaredSize} bytes, received ${received}.`);
      }
      if (hash.digest('hex') !== oid) {
        throw new Invalid('The content does not match the object ID (its SHA-256).');
      }
      await limits.beforePlacing?.(received);
      await mkdir(join(target, '..'), { recursive: true, mode: 0o700 });
      await rename(temporary, target);
      return received;
    } finally {
      await rm(temporary, { force: true });
    }
  }

  read(oid: string, start = 0, end?: number): Readable {
    return createReadStream(this.#path(oid), {
      start,
      ...(end === undefined ? {} : { end }),
      highWaterMark: 1024 * 1024,
    });
  }

  /** The object's bytes from `start`, to `sink` in two reused buffers (see `copyFiles`). */
  copy(oid: string, start: number, sink: (bytes: Buffer) => Promise<void>): Promise<void> {
    return copyFiles([this.#path(oid)], start, sink);
  }

  async hash(oid: string): Promise<string> {
    const hash = createHash('sha256');
    for await (const chunk of this.read(oid)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  }

  /**
   * Removes the object's bytes when `decide` says so, and asks it with the bytes moved aside: an
   * upload that puts the same object in place meanwhile keeps its own file, and when `decide`
   * answers no (or fails) the bytes go back where they were, the same bytes whatever landed
   * there since. Whether they were removed.
   */
  async removeIf(oid: string, decide: () => Promise<boolean>): Promise<boolean> {
    const target = this.#path(oid);
    await mkdir(join(this.#root, TEMPORARY), { recursive: true, mode: 0o700 });
    const aside = join(this.#root, TEMPORARY, randomBytes(12).toString('hex'));
    let moved = false;
    let remove = false;
    try {
      await rename(target, aside);
      moved = true;
      // Young again, so the sweep of temporary files leaves it alone while it is decided on.
      const now = new Date();
      await utimes(aside, now, now);
      remove = await decide();
    } catch (error) {
      if (moved || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      remove = await decide();
    } finally {
      if (moved) await (remove ? rm(aside, { force: true }) : rename(aside, target));
    }
    return remove;
  }

  async sweepTemporary(olderThanMs: number): Promise<number> {
    const folder = join(this.#root, TEMPORARY);
    let names: string[];
    try {
      names = await readdir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let removed = 0;
    const before = Date.now() - olderThanMs;
    for (const name of names) {
      const file = join(folder, name);
      const info = await stat(file).catch(() => undefined);
      if (info && info.mtimeMs < before) {
        await rm(file, { force: true });
        removed += 1;
      }
    }
    return removed;
  }
}
