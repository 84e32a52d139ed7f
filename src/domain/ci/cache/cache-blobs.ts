import type { Readable } from 'node:stream';

/** A byte range of a stored archive, both ends included. */
export type ByteRange = { readonly start: number; readonly end: number };

/**
 * Where the archives of cache entries are kept, by entry id. The domain decides what is stored
 * and who may see it; an implementation only moves bytes (storage/cache-blob-files.ts keeps
 * them as files under the data directory, which replicas share).
 */
export interface CacheBlobs {
  /**
   * Writes `length` bytes from `source` at `offset` of entry `id`'s archive, creating it when
   * missing. Parts of one archive may be written concurrently and in any order. Rejects when
   * `source` ends early or holds more than `length` bytes (what was written may then be partial:
   * the entry is not committed).
   */
  write(id: number, offset: number, length: number, source: Readable): Promise<void>;
  /** Bytes the archive holds so far (0 when nothing has been written). */
  size(id: number): Promise<number>;
  /**
   * Hands the archive, or `range` of it, to `sink` in chunks whose memory is used again once
   * `sink` resolves for them (so `sink` must be done with a chunk when it resolves).
   */
  copy(
    id: number,
    range: ByteRange | undefined,
    sink: (bytes: Buffer) => Promise<void>,
  ): Promise<void>;
  /** Deletes the archive; nothing when it is already gone. */
  remove(id: number): Promise<void>;
  /** The ids of the archives kept in shard `shard` (0–255: the id modulo 256). */
  idsInShard(shard: number): Promise<number[]>;
}
