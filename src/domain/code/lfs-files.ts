import type { Readable } from 'node:stream';
import type { LfsService } from '../lfs/lfs.service.ts';
import { MAX_POINTER_BYTES } from '../lfs/lfs-pointer.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { FileContent } from './code.types.ts';
import { looksBinary } from './ref-path.ts';

/** What resolving Git LFS pointers takes. */
export type LfsPointers = Pick<LfsService, 'resolvePointer' | 'readHead' | 'open'>;

/**
 * A file's bytes for the raw view: in memory, or a stream when larger than a page would hold
 * (a large LFS object from its file, a large blob from git); `content` is then empty.
 */
export type RawFile = {
  readonly content: Buffer;
  readonly sizeBytes: number;
  readonly binary: boolean;
  readonly stream?: Readable;
};

type Blob = { readonly sizeBytes: number; readonly content: Buffer };

/** The LFS object a small blob points to, when it is a pointer the repository resolves. */
function resolve(lfs: LfsPointers, repo: Repository, blob: Blob) {
  if (blob.sizeBytes > MAX_POINTER_BYTES) return Promise.resolve(undefined);
  return lfs.resolvePointer(repo, blob.content);
}

/**
 * What a page shows of a file stored with Git LFS: its object, as its blob would be shown,
 * within the same bound on what is read (`maxInline`). Undefined when the blob is no pointer
 * the repository resolves.
 */
export async function lfsFileContent(
  lfs: LfsPointers,
  repo: Repository,
  blob: Blob,
  maxInline: number,
): Promise<{ oid: string; size: number; content: FileContent } | undefined> {
  const stored = await resolve(lfs, repo, blob);
  if (!stored) return undefined;
  if (stored.size > maxInline) return { ...stored, content: { kind: 'too-large' } };
  const bytes = await lfs.readHead(stored.oid, maxInline);
  if (looksBinary(bytes)) return { ...stored, content: { kind: 'binary' } };
  return { ...stored, content: { kind: 'text', text: bytes.toString('utf8') } };
}

/**
 * The raw view of a file stored with Git LFS: its object's bytes, read whole up to `maxInline`
 * and streamed beyond. Undefined when the blob is no pointer the repository resolves.
 */
export async function lfsRawFile(
  lfs: LfsPointers,
  repo: Repository,
  blob: Blob,
  maxInline: number,
): Promise<RawFile | undefined> {
  const stored = await resolve(lfs, repo, blob);
  if (!stored) return undefined;
  if (stored.size > maxInline) {
    const { stream } = await lfs.open(repo, stored.oid);
    return {
      content: Buffer.alloc(0),
      sizeBytes: stored.size,
      binary: true,
      stream,
    };
  }
  const content = await lfs.readHead(stored.oid, maxInline);
  return { content, sizeBytes: stored.size, binary: looksBinary(content) };
}
