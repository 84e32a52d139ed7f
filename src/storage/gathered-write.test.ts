import { randomBytes } from 'node:crypto';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeGathered } from './gathered-write.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kiln-gathered-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function* yieldAll(chunks: readonly Buffer[]) {
  for (const chunk of chunks) {
    yield chunk;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Writes `chunks` at `offset` of a file holding `before`; the file after, and the writes made. */
async function written(before: Buffer, offset: number, chunks: readonly Buffer[]) {
  const path = join(root, 'blob');
  await writeFile(path, before);
  const file = await open(path, 'r+');
  let calls = 0;
  const writev = file.writev.bind(file);
  file.writev = (buffers, position) => {
    calls += 1;
    return writev(buffers, position);
  };
  try {
    const count = await writeGathered(file, offset, yieldAll(chunks));
    return { count, bytes: await readFile(path), calls };
  } finally {
    await file.close();
  }
}

describe('writeGathered', () => {
  it('writes every chunk in order at the offset, leaving the rest of the file as it was', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 300_000 }), { maxLength: 12 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        async (sizes, existing, offsetSeed) => {
          const chunks = sizes.map((size) => randomBytes(size));
          const before = randomBytes(existing);
          const offset = offsetSeed % (existing + 1);
          const body = Buffer.concat(chunks);
          const { count, bytes } = await written(before, offset, chunks);
          expect(count).toBe(body.byteLength);
          const expected = Buffer.from(before);
          const grown = Buffer.alloc(Math.max(existing, offset + body.byteLength));
          expected.copy(grown);
          body.copy(grown, offset);
          expect(bytes.equals(grown)).toBe(true);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('gathers 64 KiB network chunks into a write per megabyte', async () => {
    const chunks = Array.from({ length: 160 }, () => randomBytes(64 * 1024));
    const { calls } = await written(Buffer.alloc(0), 0, chunks);
    expect(calls).toBeLessThanOrEqual(11);
  });

  it('bounds the chunks of one write when a client sends tiny ones', async () => {
    const chunks = Array.from({ length: 2_000 }, () => randomBytes(1));
    const { calls, bytes } = await written(Buffer.alloc(0), 0, chunks);
    expect(bytes.equals(Buffer.concat(chunks))).toBe(true);
    expect(calls).toBeGreaterThanOrEqual(8);
  });
});
