/**
 * Archives are not metered (SPEC.md), so their cost is bounded instead: one process builds at
 * most `service.archive.max-concurrent` at once, a bounded few wait, and the rest are answered
 * 503 with `Retry-After` — on the page route and on the API twin alike — until a build ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { noise } from '../support/git.ts';
import { stalledDownload } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, makeRepo } from '../web/fixtures.ts';

let kiln: TestServer;
const ARCHIVE = '/repos/packer/big/archive/main.tar.gz';

beforeAll(async () => {
  kiln = await startTestServer({
    SERVICE_ARCHIVE_MAX_CONCURRENT: '1',
    SERVICE_ARCHIVE_MAX_QUEUED: '0',
    SERVICE_ARCHIVE_QUEUE_TIMEOUT: '3s',
  });
  const { user } = await kiln.make.user({ handle: 'packer' });
  const repo = await makeRepo(kiln, user, 'big');
  // Random bytes do not compress: far more than the socket buffers hold, so a client that does
  // not read keeps git (and the build's slot) busy.
  await commitTo(kiln, repo, { branch: 'main', files: { 'noise.bin': noise(32 * 1024 * 1024) } });
}, 60_000);
afterAll(async () => {
  await kiln?.close();
});

describe('archive builds', () => {
  it('beyond the limit are refused with 503 and Retry-After until one ends', async () => {
    const first = await stalledDownload(`${kiln.url}${ARCHIVE}`);
    expect(first.response.statusCode).toBe(200);

    const page = await fetch(`${kiln.url}${ARCHIVE}`);
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toBe('3');
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('Too many archives');

    const api = await fetch(`${kiln.url}/api/v1${ARCHIVE}`);
    expect(api.status).toBe(503);
    expect(api.headers.get('retry-after')).toBe('3');
    expect(((await api.json()) as { message: string }).message).toContain('Too many archives');

    first.req.destroy();
    expect(
      await eventually(async () => {
        const again = await fetch(`${kiln.url}/api/v1/repos/packer/big/archive/main.zip`, {
          method: 'GET',
        });
        await again.arrayBuffer();
        return again.status === 200;
      }, 10_000),
    ).toBe(true);
  }, 60_000);
});
