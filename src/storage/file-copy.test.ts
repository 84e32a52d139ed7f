import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFiles } from './file-copy.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kiln-file-copy-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const MiB = 1024 * 1024;

/** Copies through a sink that keeps a copy of each chunk, as a socket would have sent it. */
async function copied(paths: string[], start: number, length?: number) {
  const seen: Buffer[] = [];
  const buffers = new Set<ArrayBufferLike>();
  const sink = async (bytes: Buffer) => {
    buffers.add(bytes.buffer);
    seen.push(Buffer.from(bytes));
    await new Promise((resolve) => setImmediate(resolve));
  };
  await copyFiles(paths, start, sink, length);
  return { bytes: Buffer.concat(seen), buffers: buffers.size };
}

describe('copyFiles', () => {
  it('hands files in order, from the offset, at most the length, through two buffers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3 * MiB }), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.option(fc.nat({ max: 8 * MiB }), { nil: undefined }),
        async (sizes, offsetSeed, length) => {
          const contents = sizes.map((size) => randomBytes(size));
          const paths = await Promise.all(
            contents.map(async (content, i) => {
              const path = join(root, `part-${i}`);
              await writeFile(path, content);
              return path;
            }),
          );
          const start = offsetSeed % ((contents[0]?.byteLength ?? 0) + 1);
          const { bytes, buffers } = await copied(paths, start, length);
          const all = Buffer.concat(contents);
          const end = length === undefined ? all.byteLength : start + length;
          expect(bytes.equals(all.subarray(start, end))).toBe(true);
          expect(buffers).toBeLessThanOrEqual(2);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('stops at the first failed write and leaves no read behind', async () => {
    const path = join(root, 'big');
    await writeFile(path, randomBytes(4 * MiB));
    let calls = 0;
    const failing = copyFiles([path], 0, async () => {
      calls += 1;
      throw new Error('socket closed');
    });
    await expect(failing).rejects.toThrow('socket closed');
    expect(calls).toBe(1);
  });

  it('fails on a missing file', async () => {
    await expect(copyFiles([join(root, 'absent')], 0, async () => {})).rejects.toThrow(/ENOENT/);
  });
});
