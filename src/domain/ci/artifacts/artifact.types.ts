import type { Readable } from 'node:stream';

/** Where an artifact's bytes live: path segments of `[0-9a-z-]`, built from ids and hashes. */
export type ArtifactBlobKey = readonly string[];

/**
 * The port to the bytes of artifacts, kept outside the domain (storage/artifact-blob-files.ts
 * under the data directory): positioned streaming writes, streaming reads, removal.
 */
export type ArtifactBytes = {
  /** Writes up to `length` bytes of `source` at `offset`; the bytes received (more: too long). */
  writeAt(
    key: ArtifactBlobKey,
    offset: number,
    length: number,
    source: AsyncIterable<Uint8Array>,
  ): Promise<number>;
  size(key: ArtifactBlobKey): Promise<number | undefined>;
  read(key: ArtifactBlobKey): Readable;
  /**
   * Hands the blobs at `keys`, one after the other, to `sink` in chunks whose memory is used
   * again once `sink` resolves for them (so `sink` must be done with a chunk when it resolves).
   */
  copy(keys: readonly ArtifactBlobKey[], sink: (bytes: Buffer) => Promise<void>): Promise<void>;
  remove(key: ArtifactBlobKey): Promise<void>;
  /** The names in the folder at `key`, none when it does not exist. */
  list(key: ArtifactBlobKey): Promise<string[]>;
  rename(from: ArtifactBlobKey, to: ArtifactBlobKey): Promise<void>;
};

/** An artifact as the domain speaks of it. */
export type Artifact = {
  readonly id: number;
  readonly repoId: string;
  readonly runId: string;
  readonly taskId: number;
  readonly jobName: string;
  readonly name: string;
  readonly protocol: 'pipeline' | 'v4';
  readonly state: 'uploading' | 'confirmed';
  /** Stored bytes of all its files. */
  readonly size: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
};

/** One file of an artifact. */
export type ArtifactFile = {
  readonly path: string;
  readonly size: number;
  readonly originalSize: number;
  /** `gzip` when stored gzip-encoded (as the client sent it), else empty. */
  readonly encoding: string;
};

/** A running task, as the artifact services check what it may touch. */
export type ArtifactTask = {
  readonly taskId: number;
  readonly jobName: string;
  readonly runId: string;
  /** The run's per-repository number: the `{run}` of the protocol's URLs. */
  readonly runNumber: number;
  readonly repoId: string;
};
