import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Invalid, TooLarge } from '../domain/errors.ts';
import { LfsObjectFiles } from './lfs-object-files.ts';

const oidOf = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
async function* chunks(...parts: Buffer[]) {
  for (const part of parts) yield part;
}

let root: string;
let files: LfsObjectFiles;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'kiln-lfs-files-'));
  files = new LfsObjectFiles(root);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every file under the root, temporary ones included. */
async function everything(): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

describe('LfsObjectFiles', () => {
  it('keeps an object under ab/cd/<oid> when its bytes hash to its id', async () => {
    const bytes = Buffer.from('the real content\n');
    const oid = oidOf(bytes);
    const size = await files.write(oid, chunks(bytes.subarray(0, 4), bytes.subarray(4)), {
      declaredSize: bytes.length,
    });
    expect(size).toBe(bytes.length);
    const stored = await readFile(join(root, oid.slice(0, 2), oid.slice(2, 4), oid));
    expect(stored.equals(bytes)).toBe(true);
    expect(await files.size(oid)).toBe(bytes.length);
    expect(await files.hash(oid)).toBe(oid);
  });

  it('copies an object from any offset, in order, each buffer written before its reuse', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3 * 1024 * 1024 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (size, where) => {
          const bytes = randomBytes(size);
          const oid = oidOf(bytes);
          await files.write(oid, chunks(bytes), { declaredSize: size });
          const start = Math.floor(where * size);
          const copied: Buffer[] = [];
          await files.copy(oid, start, async (chunk) => {
            // A copy, taken before the sink resolves: the buffer is filled again afterwards.
            copied.push(Buffer.from(chunk));
            await new Promise((resolve) => setImmediate(resolve));
          });
          expect(Buffer.concat(copied).equals(bytes.subarray(start))).toBe(true);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('stops a copy when the sink fails, and leaves nothing open', async () => {
    const bytes = Buffer.alloc(3 * 1024 * 1024, 7);
    const oid = oidOf(bytes);
    await files.write(oid, chunks(bytes), {});
    let calls = 0;
    const failing = files.copy(oid, 0, async () => {
      calls += 1;
      throw new Error('the client went away');
    });
    await expect(failing).rejects.toThrow('the client went away');
    expect(calls).toBe(1);
  });

  it('keeps nothing of a body that is not the object, too short, too long or too large', async () => {
    const bytes = Buffer.from('0123456789');
    const oid = oidOf(bytes);
    await expect(files.write(oidOf(Buffer.from('x')), chunks(bytes), {})).rejects.toThrow(Invalid);
    await expect(files.write(oid, chunks(bytes), { declaredSize: 11 })).rejects.toThrow(Invalid);
    await expect(files.write(oid, chunks(bytes), { declaredSize: 9 })).rejects.toThrow(Invalid);
    await expect(files.write(oid, chunks(bytes), { maxSize: 5 })).rejects.toThrow(TooLarge);
    expect(await everything()).toEqual([]);
  });

  it('keeps nothing when the body fails half-way', async () => {
    async function* broken() {
      yield Buffer.from('partial');
      throw new Error('connection reset');
    }
    await expect(files.write('a'.repeat(64), broken(), {})).rejects.toThrow('connection reset');
    expect(await everything()).toEqual([]);
  });

  it('never turns anything but 64 lower-case hex digits into a path', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 80 }), async (candidate) => {
        fc.pre(!/^[0-9a-f]{64}$/.test(candidate));
        await expect(files.size(candidate)).rejects.toThrow(Invalid);
        await expect(files.write(candidate, chunks(Buffer.from('x')), {})).rejects.toThrow(Invalid);
      }),
      { numRuns: 100 },
    );
    expect(await everything()).toEqual([]);
  });

  it('removes an object only when the decision says so, and puts it back otherwise', async () => {
    const bytes = Buffer.from('kept or removed\n');
    const oid = oidOf(bytes);
    await files.write(oid, chunks(bytes), {});
    let seenDuringDecision: number | undefined = 0;
    expect(
      await files.removeIf(oid, async () => {
        seenDuringDecision = await files.size(oid);
        return false;
      }),
    ).toBe(false);
    expect(seenDuringDecision).toBeUndefined();
    expect(await files.size(oid)).toBe(bytes.length);
    await expect(
      files.removeIf(oid, () => Promise.reject(new Error('no answer'))),
    ).rejects.toThrow();
    expect(await files.size(oid)).toBe(bytes.length);
    expect(await files.removeIf(oid, async () => true)).toBe(true);
    expect(await files.size(oid)).toBeUndefined();
    expect(await everything()).toEqual([]);
    // Bytes already gone: the decision is still made (the record is forgotten all the same).
    expect(await files.removeIf(oid, async () => true)).toBe(true);
  });
});
