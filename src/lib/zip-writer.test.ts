import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeZip } from './zip-writer.ts';

async function* chunks(...parts: Buffer[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield part;
}

async function zipOf(files: [string, Buffer[]][]): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of writeZip(
    files.map(([name, data]) => ({ name, bytes: () => chunks(...data) })),
  )) {
    parts.push(part);
  }
  return Buffer.concat(parts);
}

/** Reads a stored zip through its central directory, as unzip does. */
function readZip(zip: Buffer): Map<string, Buffer> {
  const end = zip.length - 22;
  expect(zip.readUInt32LE(end)).toBe(0x06054b50);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const crc = zip.readUInt32LE(at + 16);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const offset = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    expect(zip.readUInt32LE(offset)).toBe(0x04034b50);
    const dataAt = offset + 30 + zip.readUInt16LE(offset + 26);
    const data = zip.subarray(dataAt, dataAt + size);
    expect(crc32(data)).toBe(crc);
    files.set(name, Buffer.from(data));
    at += 46 + nameLength;
  }
  return files;
}

describe('writeZip', () => {
  it('writes files whose names, bytes and checksums the central directory gives back', async () => {
    const big = Buffer.alloc(300_000, 'x');
    const zip = await zipOf([
      ['a.txt', [Buffer.from('hello '), Buffer.from('world')]],
      ['sub/dir/b.bin', [big, big]],
      ['empty', []],
    ]);
    const files = readZip(zip);
    expect(files.get('a.txt')?.toString()).toBe('hello world');
    expect(files.get('sub/dir/b.bin')?.equals(Buffer.concat([big, big]))).toBe(true);
    expect(files.get('empty')?.length).toBe(0);
  });

  it('keeps any set of files, however they are chunked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.tuple(
            fc.string({ minLength: 1, maxLength: 40 }),
            fc.array(fc.uint8Array(), { maxLength: 4 }),
          ),
          { selector: ([name]) => name, maxLength: 6 },
        ),
        async (entries) => {
          const files = readZip(
            await zipOf(entries.map(([name, parts]) => [name, parts.map((p) => Buffer.from(p))])),
          );
          expect([...files.keys()]).toEqual(entries.map(([name]) => name));
          for (const [name, parts] of entries) {
            expect(files.get(name)?.equals(Buffer.concat(parts))).toBe(true);
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});
