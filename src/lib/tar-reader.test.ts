import { PassThrough } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTar, TarFormatError } from './tar-reader.ts';
import { TarWriter } from './tar-writer.ts';

type Item = { path: string; content: Buffer };

async function pack(items: readonly Item[]): Promise<Buffer> {
  const out = new PassThrough();
  const done = buffer(out);
  const writer = new TarWriter(out);
  await writer.directory('top');
  for (const item of items) await writer.file(`top/${item.path}`, item.content);
  await writer.finish();
  out.end();
  return done;
}

async function unpack(archive: Buffer, chunk = 700): Promise<Item[]> {
  const pieces = [];
  for (let i = 0; i < archive.length; i += chunk) pieces.push(archive.subarray(i, i + chunk));
  const items: Item[] = [];
  for await (const entry of readTar(pieces)) {
    if (entry.type === 'file')
      items.push({ path: entry.path, content: await buffer(entry.content) });
  }
  return items;
}

const segment = fc.stringMatching(/^[a-z0-9._-]{1,60}$/).filter((s) => s !== '.' && s !== '..');

describe('tar', () => {
  it('reads back what it wrote, for any paths and sizes, in any chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.record({
            path: fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join('/')),
            content: fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a)),
          }),
          { selector: (item) => item.path, maxLength: 6 },
        ),
        fc.integer({ min: 1, max: 2000 }),
        async (items, chunk) => {
          const read = await unpack(await pack(items), chunk);
          expect(read).toEqual(items.map((item) => ({ ...item, path: `top/${item.path}` })));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('skips what a reader leaves unread', async () => {
    const archive = await pack([
      { path: 'a', content: Buffer.alloc(5000, 1) },
      { path: 'b', content: Buffer.from('second') },
    ]);
    const seen: string[] = [];
    for await (const entry of readTar([archive])) {
      seen.push(entry.path);
      if (entry.path === 'top/b') expect((await buffer(entry.content)).toString()).toBe('second');
    }
    expect(seen).toEqual(['top', 'top/a', 'top/b']);
  });

  it('refuses a stream that ends inside a file, and a damaged header', async () => {
    const archive = await pack([{ path: 'a', content: Buffer.alloc(4000, 7) }]);
    await expect(unpack(archive.subarray(0, 2000))).rejects.toThrow(TarFormatError);
    const damaged = Buffer.from(archive);
    damaged[520] = 0x41;
    await expect(unpack(damaged)).rejects.toThrow(/checksum/);
  });

  it('fails when a file is not the size it was announced as', async () => {
    const writer = new TarWriter(new PassThrough());
    await expect(writer.fileFrom('x', 10, [Buffer.alloc(4)])).rejects.toThrow(/shrank/);
    await expect(writer.fileFrom('y', 2, [Buffer.alloc(4)])).rejects.toThrow(/grew/);
  });
});
