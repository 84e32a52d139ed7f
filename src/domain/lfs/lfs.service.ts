import type { Readable } from 'node:stream';
import { Invalid, NotFound } from '../errors.ts';
import type { Repository } from '../repos/repo.types.ts';
import { isOid, type LfsObjectBytes } from './lfs.types.ts';
import type { LfsObjectStore } from './lfs-object.store.ts';
import { parsePointer } from './lfs-pointer.ts';

/** Most objects one batch request may name (git-lfs sends 100 at a time). */
export const MAX_BATCH_OBJECTS = 10_000;

/** An orphan is removed only once it is this old: an upload links its object just after it. */
const ORPHAN_GRACE_MS = 60 * 60_000;

/** What the batch answers for one object, in the domain's words; the edge writes the wire. */
export type BatchAnswer =
  | { readonly oid: string; readonly size: number; readonly action: 'upload' | 'download' }
  /** An upload of an object the repository already has: nothing to send. */
  | { readonly oid: string; readonly size: number; readonly action: 'none' }
  | {
      readonly oid: string;
      readonly size: number;
      readonly error: 'missing' | 'invalid' | 'too-large';
      readonly message: string;
    };

export type LfsDeps = {
  readonly store: LfsObjectStore;
  readonly bytes: LfsObjectBytes;
  /** Largest object accepted, in bytes; 0 for no limit. */
  readonly maxFileSize: number;
  readonly now?: () => number;
};

/**
 * Git LFS objects of repositories. The callers (the git edge, pages) have checked the caller's
 * access to the repository the way git does; here a repository reaches an object only through a
 * row saying so, whoever else stored the same bytes.
 */
export class LfsService {
  readonly #deps: LfsDeps;

  constructor(deps: LfsDeps) {
    this.#deps = deps;
  }

  #now(): number {
    return this.#deps.now?.() ?? Date.now();
  }

  /** The answer to a batch request, object by object, read with one query. */
  async batch(
    repo: Repository,
    operation: 'upload' | 'download',
    objects: readonly { oid?: unknown; size?: unknown }[],
  ): Promise<BatchAnswer[]> {
    if (objects.length > MAX_BATCH_OBJECTS) {
      throw new Invalid(`A batch may name at most ${MAX_BATCH_OBJECTS} objects.`);
    }
    // Each id is checked once; only valid ones reach the query.
    const valid = objects.map((o) => isOid(o.oid));
    const known = await this.#deps.store.known(
      repo.id,
      objects.filter((_, i) => valid[i]).map((o) => o.oid as string),
    );
    const max = this.#deps.maxFileSize;
    return objects.map(({ oid, size }, i): BatchAnswer => {
      const claimed = typeof size === 'number' && Number.isSafeInteger(size) && size >= 0;
      if (!valid[i] || typeof oid !== 'string') {
        const shown = typeof oid === 'string' ? oid.slice(0, 100) : '';
        return { oid: shown, size: 0, error: 'invalid', message: 'Invalid object ID.' };
      }
      const answered = { oid, size: 0 };
      if (!claimed) return { ...answered, error: 'invalid', message: 'Invalid object size.' };
      const found = known.get(oid);
      if (operation === 'download') {
        if (!found?.reachable) return { oid, size, error: 'missing', message: 'Object not found.' };
        return { oid, size: found.size, action: 'download' };
      }
      if (found?.reachable && found.size === size) return { oid, size, action: 'none' };
      if (max > 0 && size > max) {
        return { oid, size, error: 'too-large', message: tooLargeMessage(max) };
      }
      return { oid, size, action: 'upload' };
    });
  }

  /**
   * Stores an object for `repo`: its bytes are hashed as they arrive and kept only when they
   * are the object the oid names. Bytes already stored for another repository are sent again
   * all the same: having them is what proves the uploader may reach them, an oid alone does not.
   */
  async upload(
    repo: Repository,
    oid: string,
    source: AsyncIterable<Uint8Array>,
    declaredSize: number | undefined,
  ): Promise<void> {
    if (!isOid(oid)) throw new Invalid('Invalid object ID.');
    const max = this.#deps.maxFileSize;
    if (max > 0 && declaredSize !== undefined && declaredSize > max) {
      throw new Invalid(tooLargeMessage(max));
    }
    const { store } = this.#deps;
    const size = await this.#deps.bytes.write(oid, source, {
      declaredSize,
      maxSize: max || undefined,
      // Recorded young before the bytes land, so a sweep running now cannot remove them.
      beforePlacing: (stored) => store.recordStored(oid, stored, this.#now()),
    });
    await store.add(repo.id, oid, size, this.#now());
  }

  /** Whether `repo` holds `oid` at `size` (the verify step after an upload). */
  async verify(repo: Repository, oid: unknown, size: unknown): Promise<void> {
    if (!isOid(oid)) throw new Invalid('Invalid object ID.');
    const found = (await this.#deps.store.known(repo.id, [oid])).get(oid);
    if (!found?.reachable) throw new NotFound('Object not found.');
    if (found.size !== size) throw new Invalid('The object has another size.');
  }

  /** The object `oid` of `repo`: its size and its bytes from `start`. NotFound otherwise. */
  async open(
    repo: Repository,
    oid: string,
    start = 0,
  ): Promise<{ size: number; stream: Readable }> {
    const size = await this.#reachableSize(repo, oid);
    return { size, stream: this.#deps.bytes.read(oid, start) };
  }

  /** The size of `oid` when `repo` reaches it; NotFound otherwise. */
  async #reachableSize(repo: Repository, oid: string): Promise<number> {
    if (!isOid(oid)) throw new Invalid('Invalid object ID.');
    const found = (await this.#deps.store.known(repo.id, [oid])).get(oid);
    if (!found?.reachable) throw new NotFound('Object not found.');
    return found.size;
  }

  /**
   * The object `oid` of `repo` for a caller that writes its bytes itself: its size, and `copy`,
   * which hands the bytes from `start` to a sink in reused buffers (LfsObjectBytes.copy).
   * NotFound otherwise.
   */
  async locate(
    repo: Repository,
    oid: string,
  ): Promise<{
    size: number;
    copy: (start: number, sink: (bytes: Buffer) => Promise<void>) => Promise<void>;
  }> {
    const size = await this.#reachableSize(repo, oid);
    return { size, copy: (start, sink) => this.#deps.bytes.copy(oid, start, sink) };
  }

  /**
   * The object a blob points to when the blob is a Git LFS pointer and `repo` reaches the
   * object; undefined otherwise (the blob is then shown as it is, like a pointer whose object
   * was never pushed).
   */
  async resolvePointer(
    repo: Repository,
    blob: Uint8Array,
  ): Promise<{ oid: string; size: number } | undefined> {
    const pointer = parsePointer(blob);
    if (!pointer) return undefined;
    const found = (await this.#deps.store.known(repo.id, [pointer.oid])).get(pointer.oid);
    return found?.reachable ? { oid: pointer.oid, size: found.size } : undefined;
  }

  /** The first `maxBytes` bytes of a stored object (a page shows no more than that). */
  async readHead(oid: string, maxBytes: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    if (maxBytes <= 0) return Buffer.alloc(0);
    for await (const chunk of this.#deps.bytes.read(oid, 0, maxBytes - 1)) {
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  }

  /** A new fork reaches everything its parent reaches, without a copy of the bytes. */
  async shareWithFork(parent: Repository, fork: Repository): Promise<void> {
    await this.#deps.store.share(parent.id, fork.id, this.#now());
  }

  /** How many objects `repo` reaches, and their bytes. */
  usage(repo: Repository): Promise<{ objects: number; bytes: number }> {
    return this.#deps.store.usage(repo.id);
  }

  /**
   * Removes the objects no repository reaches any more (deleted repositories), and temporary
   * files of uploads cut short by a dying process. Returns how many objects went.
   *
   * Invariant: an object a repository reaches has its bytes, even when it is uploaded again
   * while the sweep removes it. An upload records the object young before its bytes land
   * (`upload`), and the sweep forgets an object only while it is old and unreached, deciding
   * with its bytes moved aside (`removeIf`): either the upload's record comes first and the
   * bytes go back, or the forgetting does and the upload's bytes land after they were moved.
   */
  async removeOrphans(): Promise<number> {
    const before = this.#now() - ORPHAN_GRACE_MS;
    await this.#deps.bytes.sweepTemporary(ORPHAN_GRACE_MS);
    let removed = 0;
    for (;;) {
      const orphans = await this.#deps.store.orphans(before, 500);
      for (const oid of orphans) {
        const forget = () => this.#deps.store.forgetOrphan(oid, before);
        if (await this.#deps.bytes.removeIf(oid, forget)) removed += 1;
      }
      if (orphans.length < 500) return removed;
    }
  }

  /**
   * `kiln doctor`'s check: every object a repository reaches is stored at its size and, for
   * `hashEvery` (1: all of them, n: one in n), hashes to its oid. Returns what is wrong, one
   * line each.
   */
  async check(hashEvery: number): Promise<{ checked: number; problems: string[] }> {
    const problems: string[] = [];
    const objects = await this.#deps.store.all();
    // A sample that moves from run to run: every object is hashed again sooner or later.
    const offset = Math.floor(Math.random() * hashEvery);
    let index = 0;
    for (const { oid, size } of objects) {
      const stored = await this.#deps.bytes.size(oid);
      if (stored === undefined) problems.push(`LFS object ${oid} is missing`);
      else if (stored !== size) problems.push(`LFS object ${oid} has ${stored} bytes, not ${size}`);
      else if ((index + offset) % hashEvery === 0 && (await this.#deps.bytes.hash(oid)) !== oid) {
        problems.push(`LFS object ${oid} does not hash to its id`);
      }
      index += 1;
    }
    return { checked: objects.length, problems };
  }
}

function tooLargeMessage(max: number): string {
  return `The object is larger than this server accepts (${max} bytes at most).`;
}
