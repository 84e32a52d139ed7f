import type { Readable } from 'node:stream';
import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { readBlob } from '../../git/read-objects.ts';
import type { RepoHandle } from '../../git/repo-paths.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { FileView, Readme, ReadmeEntry, TreeItem } from './code.types.ts';
import { browse, missing } from './code-reads.ts';
import { type LfsPointers, lfsFileContent, lfsRawFile, type RawFile } from './lfs-files.ts';
import { isMarkdownName, looksBinary, pickReadme } from './ref-path.ts';

/**
 * A file's bytes as the code pages show them: inline text, a note that it is binary or too large,
 * the raw bytes, or a README. Each read is bounded, so no file a user pushed decides how much the
 * server holds in memory; files stored with Git LFS are shown as their objects.
 */

/**
 * Files above this many bytes are not shown inline, and the raw view streams them from git
 * rather than holding them in memory while a client reads.
 */
export const MAX_INLINE_BYTES = 1024 * 1024;
const MAX_README_BYTES = 512 * 1024;

/** Where a file's blob is read from, and the LFS store its pointers resolve in. */
export type BlobSource = {
  readonly pool: CatFilePool;
  readonly handle: RepoHandle;
  readonly repo: Repository;
  readonly lfs: LfsPointers | undefined;
};

/** A file for display: its text, or a note that it is binary or too large to show. */
export async function fileView(source: BlobSource, item: TreeItem): Promise<FileView> {
  if (item.kind !== 'file' && item.kind !== 'symlink') throw missing('file');
  const blob = await browse(() =>
    readBlob(source.pool, source.handle, item.sha, { maxBytes: MAX_INLINE_BYTES }),
  );
  const base = { path: item.path, name: item.name, sha: blob.sha, mode: item.mode };
  const stored =
    item.kind === 'file' && source.lfs
      ? await lfsFileContent(source.lfs, source.repo, blob, MAX_INLINE_BYTES)
      : undefined;
  if (stored) {
    const { oid, size, content } = stored;
    return { ...base, sizeBytes: size, lfs: { oid }, content };
  }
  if (blob.sizeBytes > MAX_INLINE_BYTES || blob.truncated) {
    return { ...base, sizeBytes: blob.sizeBytes, content: { kind: 'too-large' } };
  }
  if (looksBinary(blob.content)) {
    return { ...base, sizeBytes: blob.sizeBytes, content: { kind: 'binary' } };
  }
  return {
    ...base,
    sizeBytes: blob.sizeBytes,
    content: { kind: 'text', text: blob.content.toString('utf8') },
  };
}

/**
 * A file's bytes for the raw view, whatever its size: up to MAX_INLINE_BYTES in memory, beyond
 * that streamed (`stream`) through `streamLarge(blob id)`, which also hands over its first bytes
 * to judge whether it is binary; a file stored with Git LFS is its object, streamed from its
 * file past the same size.
 */
export async function rawFile(
  source: BlobSource,
  item: TreeItem,
  streamLarge: (sha: string) => Promise<{ head: Buffer; stream: Readable }>,
): Promise<RawFile> {
  if (item.kind !== 'file' && item.kind !== 'symlink') throw missing('file');
  const blob = await browse(() =>
    readBlob(source.pool, source.handle, item.sha, { maxBytes: MAX_INLINE_BYTES }),
  );
  const stored =
    item.kind === 'file' && source.lfs
      ? await lfsRawFile(source.lfs, source.repo, blob, MAX_INLINE_BYTES)
      : undefined;
  if (stored) return stored;
  if (!blob.truncated) {
    return { content: blob.content, sizeBytes: blob.sizeBytes, binary: looksBinary(blob.content) };
  }
  const { head, stream } = await browse(() => streamLarge(blob.sha));
  return { content: Buffer.alloc(0), sizeBytes: blob.sizeBytes, binary: looksBinary(head), stream };
}

/** The README among a directory's entries, if it has one: markdown first, then plain text. */
export function readmeAmong(items: readonly TreeItem[]): ReadmeEntry | undefined {
  const files = items.filter((item) => item.kind === 'file');
  const name = pickReadme(files.map((item) => item.name));
  const item = files.find((file) => file.name === name);
  return item && { item, markdown: isMarkdownName(item.name) };
}

/**
 * A README's text (its first MAX_README_BYTES), unless it is binary; a larger README's first
 * part comes from `headOfLarge`, never through the repository's shared cat-file process.
 */
export async function readmeText(
  source: Pick<BlobSource, 'pool' | 'handle'>,
  entry: ReadmeEntry,
  headOfLarge: (sha: string, bytes: number) => Promise<Buffer>,
): Promise<Readme | undefined> {
  const blob = await browse(() =>
    readBlob(source.pool, source.handle, entry.item.sha, { maxBytes: MAX_README_BYTES }),
  );
  const content = blob.truncated
    ? await browse(() => headOfLarge(blob.sha, MAX_README_BYTES))
    : blob.content;
  if (looksBinary(content)) return undefined;
  return { ...entry, text: content.toString('utf8') };
}
