import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CatFilePool } from '../../git/cat-file-pool.ts';
import type { RepoHandle } from '../../git/repo-paths.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { TreeItem } from './code.types.ts';
import { type BlobSource, fileView, MAX_INLINE_BYTES, rawFile } from './file-contents.ts';

const SHA = 'a'.repeat(40);
const item: TreeItem = {
  name: 'huge.bin',
  path: 'huge.bin',
  kind: 'file',
  mode: '100644',
  sha: SHA,
};

/** A pool whose one blob has `sizeBytes`, counting the reads of its contents. */
function poolWith(sizeBytes: number) {
  const reads = { contents: 0 };
  const pool = {
    info: async () => ({ sha: SHA, type: 'blob' as const, sizeBytes }),
    contents: async (_repo: RepoHandle, _name: string, maxBytes: number) => {
      reads.contents++;
      const content = Buffer.alloc(Math.min(sizeBytes, maxBytes), 'x');
      return { sha: SHA, type: 'blob' as const, sizeBytes, content, truncated: false };
    },
  } as unknown as CatFilePool;
  const source: BlobSource = {
    pool,
    handle: {} as RepoHandle,
    repo: {} as Repository,
    lfs: undefined,
  };
  return { source, reads };
}

describe('large files', () => {
  // The shared cat-file process passes every byte of a blob it is asked for, whatever is kept.
  it('are never read through the repository’s cat-file process, for any size past the inline bound', async () => {
    for (const sizeBytes of [MAX_INLINE_BYTES + 1, 64 * 1024 * 1024, 5 * 1024 ** 3]) {
      const { source, reads } = poolWith(sizeBytes);
      const view = await fileView(source, item);
      expect(view.content).toEqual({ kind: 'too-large' });
      let streamed: string | undefined;
      const raw = await rawFile(source, item, async (sha) => {
        streamed = sha;
        return { head: Buffer.from([1, 0, 2]), stream: Readable.from([]) };
      });
      expect(streamed).toBe(SHA);
      expect(raw.sizeBytes).toBe(sizeBytes);
      expect(raw.binary).toBe(true);
      expect(raw.stream).toBeDefined();
      expect(reads.contents).toBe(0);
    }
  });

  it('up to the bound are read once and held, without a stream', async () => {
    const { source, reads } = poolWith(MAX_INLINE_BYTES);
    const raw = await rawFile(source, item, () => {
      throw new Error('a small file must not be streamed');
    });
    expect(raw.content.length).toBe(MAX_INLINE_BYTES);
    expect(raw.stream).toBeUndefined();
    expect(reads.contents).toBe(1);
  });
});
