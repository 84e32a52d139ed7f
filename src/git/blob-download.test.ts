import { randomBytes } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { beforeEach, describe, expect, it } from 'vitest';
import { readBlobHead, streamBlob } from './blob-download.ts';
import { readBlob } from './read-objects.ts';
import { commitFiles, eventually, processesIn, useTestRepo } from './test-support.ts';

const fixture = useTestRepo({ pool: true });
const large = randomBytes(3 * 1024 * 1024);
const small = Buffer.from('twelve bytes');

beforeEach(async () => {
  await commitFiles(fixture.repo.path, {
    branch: 'main',
    files: { 'large.bin': large, 'small.txt': small },
  });
});

const idOf = async (path: string) =>
  (await readBlob(fixture.pool, fixture.repo, 'main', { path, maxBytes: 0 })).sha;

describe('streamBlob', () => {
  it('streams every byte of a large blob, its head read first and given back', async () => {
    const { head, stream } = await streamBlob(fixture.repo, await idOf('large.bin'), 8000);
    expect(head.length).toBeGreaterThanOrEqual(8000);
    expect(head.equals(large.subarray(0, head.length))).toBe(true);
    expect((await buffer(stream)).equals(large)).toBe(true);
  });

  it('gives the whole of a blob shorter than its head', async () => {
    const { head, stream } = await streamBlob(fixture.repo, await idOf('small.txt'), 8000);
    expect(head).toEqual(small);
    expect(await buffer(stream)).toEqual(small);
  });

  it('stops git when the stream is destroyed unread', async () => {
    const { stream } = await streamBlob(fixture.repo, await idOf('large.bin'));
    stream.destroy();
    await eventually(async () =>
      (await processesIn(fixture.repo.path)).every((line) => !line.includes('cat-file blob')),
    );
  });
});

describe('readBlobHead', () => {
  it('reads exactly the head asked for, or the whole of a shorter blob', async () => {
    expect(await readBlobHead(fixture.repo, await idOf('large.bin'), 100)).toEqual(
      large.subarray(0, 100),
    );
    expect(await readBlobHead(fixture.repo, await idOf('small.txt'), 100)).toEqual(small);
  });
});
