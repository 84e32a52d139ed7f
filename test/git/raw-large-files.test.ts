/**
 * Raw files of any size are served whole, as Gitea serves them: up to 1 MiB from memory, past
 * it streamed from a git of their own, so no file holds its size in the server's memory while a
 * client reads. The raw view is not metered, so those streams are bounded instead: at most
 * `service.raw.max-concurrent` at once, a bounded few wait, the rest are answered 503 with
 * `Retry-After` (page route and API alike) until one ends. Small files never wait.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { noise } from '../support/git.ts';
import { stalledDownload } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, makeRepo } from '../web/fixtures.ts';

let kiln: TestServer;
const RAW = '/repos/keeper/files/raw/main';
const MEDIA = '/api/v1/repos/keeper/files/media';
/** 3 MiB and a bit of text with multi-byte characters, so a cut or a re-encoding shows. */
const text = Buffer.from(
  Array.from({ length: 50_000 }, (_, n) => `line ${n} é€ <&> ${'t'.repeat(50)}\n`).join(''),
);
const binary = noise(32 * 1024 * 1024);
const small = Buffer.from('a small file\n');

const sha256 = (bytes: Buffer | ArrayBuffer) =>
  createHash('sha256')
    .update(Buffer.from(bytes as ArrayBuffer))
    .digest('hex');

beforeAll(async () => {
  kiln = await startTestServer({
    SERVICE_RAW_MAX_CONCURRENT: '1',
    // A stream gives its slot back as it closes, a moment after its client has the last byte:
    // the next request waits for it rather than being refused.
    SERVICE_RAW_MAX_QUEUED: '4',
    SERVICE_RAW_QUEUE_TIMEOUT: '2s',
  });
  const { user } = await kiln.make.user({ handle: 'keeper' });
  const repo = await makeRepo(kiln, user, 'files');
  await commitTo(kiln, repo, {
    branch: 'main',
    files: {
      'big.txt': text,
      'noise.bin': binary,
      'small.txt': small,
      'docs/README.md': `# Start of a long read-me\n\n${'filler words here\n'.repeat(40_000)}`,
    },
  });
}, 60_000);
afterAll(async () => {
  await kiln?.close();
});

describe('large raw files', () => {
  it('are served whole and byte for byte past 1 MiB, text and binary, page and API', async () => {
    expect(text.length).toBeGreaterThan(3 * 1024 * 1024);
    for (const base of [RAW, MEDIA]) {
      const page = await fetch(`${kiln.url}${base}/big.txt`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(page.headers.get('content-length')).toBe(String(text.length));
      expect(sha256(await page.arrayBuffer())).toBe(sha256(text));

      const file = await fetch(`${kiln.url}${base}/noise.bin`);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('application/octet-stream');
      expect(file.headers.get('content-length')).toBe(String(binary.length));
      expect(sha256(await file.arrayBuffer())).toBe(sha256(binary));
    }
    for (const base of [RAW, MEDIA]) {
      const head = await fetch(`${kiln.url}${base}/noise.bin`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(binary.length));
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    }
  }, 60_000);

  it('past the README bound still show the start of a README', async () => {
    const page = await fetch(`${kiln.url}/repos/keeper/files/src/main/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Start of a long read-me');
  });

  it('beyond the limit are refused with 503 and Retry-After until one ends; small ones pass', async () => {
    const first = await stalledDownload(`${kiln.url}${RAW}/noise.bin`);
    expect(first.response.statusCode).toBe(200);

    const page = await fetch(`${kiln.url}${RAW}/big.txt`);
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toBe('2');
    expect(await page.text()).toContain('Too many large files');

    const api = await fetch(`${kiln.url}${MEDIA}/big.txt`);
    expect(api.status).toBe(503);
    expect(api.headers.get('retry-after')).toBe('2');
    expect(((await api.json()) as { message: string }).message).toContain('Too many large files');

    const smallFile = await fetch(`${kiln.url}${RAW}/small.txt`);
    expect(smallFile.status).toBe(200);
    expect(Buffer.from(await smallFile.arrayBuffer())).toEqual(small);

    // A client that goes away gives its slot back.
    first.req.destroy();
    expect(
      await eventually(async () => {
        const again = await fetch(`${kiln.url}${RAW}/big.txt`);
        const bytes = await again.arrayBuffer();
        return again.status === 200 && sha256(bytes) === sha256(text);
      }, 10_000),
    ).toBe(true);
  }, 60_000);
});
