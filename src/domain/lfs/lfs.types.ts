import type { Readable } from 'node:stream';

/** A Git LFS object id: the SHA-256 of its content, 64 lower-case hex digits. */
const OID = /^[0-9a-f]{64}$/;

/**
 * Whether `value` is an LFS object id. Checked before an oid reaches a query or a path: an oid
 * is the only part of a stored object's file name, so nothing else may ever get that far.
 */
export function isOid(value: unknown): value is string {
  return typeof value === 'string' && OID.test(value);
}

/** What one object of a batch request names. */
export type LfsObjectSpec = { readonly oid: string; readonly size: number };

/**
 * Where LFS objects' bytes live (implemented in src/storage/, handed in by the composition
 * root). Content-addressed: one file per oid, whatever the number of repositories.
 */
export type LfsObjectBytes = {
  /** The stored size of `oid`, or undefined when its bytes are not there. */
  size(oid: string): Promise<number | undefined>;
  /**
   * Streams `source` to a temporary file while hashing it and puts it in place only when its
   * SHA-256 is `oid` (and it is `declaredSize` bytes, when given); otherwise nothing is kept and
   * `Invalid` is thrown (`TooLarge` past `maxSize`). `beforePlacing` runs once the bytes are
   * checked and before they are put in place. Returns the size stored.
   */
  write(
    oid: string,
    source: AsyncIterable<Uint8Array>,
    limits: {
      readonly declaredSize?: number | undefined;
      readonly maxSize?: number | undefined;
      readonly beforePlacing?: ((size: number) => Promise<void>) | undefined;
    },
  ): Promise<number>;
  /** A stream of the object's bytes from `start`, and up to `end` (inclusive) when given. */
  read(oid: string, start?: number, end?: number): Readable;
  /**
   * Hands the object's bytes from `start` to `sink` in chunks whose memory is used again once
   * `sink` resolves for them (so `sink` must be done with a chunk when it resolves).
   */
  copy(oid: string, start: number, sink: (bytes: Buffer) => Promise<void>): Promise<void>;
  /** The SHA-256 of the stored bytes (for `kiln doctor`). */
  hash(oid: string): Promise<string>;
  /**
   * Removes the object's bytes if `decide` answers yes, asked while the bytes are moved aside
   * (an upload placing them meanwhile keeps its own); otherwise they are put back. Whether they
   * were removed.
   */
  removeIf(oid: string, decide: () => Promise<boolean>): Promise<boolean>;
  /** Removes temporary files of uploads older than `olderThanMs` (a process died mid-upload). */
  sweepTemporary(olderThanMs: number): Promise<number>;
};

/** A file lock of `git lfs lock`. */
export type LfsLock = {
  readonly id: number;
  readonly repoId: string;
  readonly path: string;
  readonly ownerId: string;
  readonly ownerHandle: string;
  readonly lockedAt: Date;
};

/** One page of locks and the cursor of the next, if any. */
export type LfsLockPage = { readonly locks: readonly LfsLock[]; readonly nextCursor?: string };
