/**
 * Bad input gets Gitea's 4xx with `{message, url}`, never a 500: unknown owners and repositories,
 * odd names and refs, unusable paging values (which fall back to the defaults, as in Gitea),
 * malformed JSON (400), wrong types (422), bodies over the limit (413).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { addCommit, apiClient, type Caller, caller, createRepo } from './fixtures.ts';

let kiln: TestServer;
let api: ReturnType<typeof apiClient>;
let alice: Caller;
let repo: string;

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_HTTP_BODY_LIMIT: String(64 * 1024) });
  api = apiClient(kiln);
  alice = await caller(kiln);
  await createRepo(kiln, alice, 'input');
  for (let i = 0; i < 3; i += 1) await addCommit(kiln, alice.handle, 'input', `b${i}`);
  repo = `/repos/${alice.handle}/input`;
});
afterAll(async () => {
  await kiln?.close();
});

async function expect4xx(path: string, options: Parameters<typeof api>[1] = {}, status?: number) {
  const response = await api(path, options);
  const what = `${options.method ?? 'GET'} ${path}`;
  expect(response.status, what).toBeGreaterThanOrEqual(400);
  expect(response.status, what).toBeLessThan(500);
  if (status !== undefined) expect(response.status, what).toBe(status);
  const body = await json(response);
  expect(body, what).toMatchObject({ message: expect.any(String), url: expect.any(String) });
  return body;
}

describe('unknown and odd names', () => {
  const names = [
    'nobody/input',
    `${'x'.repeat(10)}/nothing`,
    '..%2F..%2Fetc/passwd',
    '%2E%2E/input',
    `${'a'.repeat(300)}/input`,
    'a%00b/input',
    'ünïcode/répo',
    '-dash/.dot',
    'a%20b/c%20d',
    `${'%FF'}/x`,
  ];
  it.each(names)('answers 4xx for /repos/%s and everything below it', async (name) => {
    for (const suffix of [
      '',
      '/branches',
      '/branches/main',
      '/releases',
      '/releases/latest',
      '/releases/tags/v1',
      '/releases/1',
      '/labels',
      '/commits/main/status',
      '/commits/main/statuses',
      '/statuses/abc',
    ]) {
      await expect4xx(`/repos/${name}${suffix}`);
    }
  });

  it.each([
    'main..b0',
    'main@{1}',
    'main^',
    '%5C',
    '~',
    'a%3Ab',
    '.hidden',
    'x.lock',
    'a//b',
    `${'r'.repeat(900)}`,
    `${'r'.repeat(1100)}`,
    '%E2%80%AE',
    '*',
  ])('answers 4xx for the ref %s', async (ref) => {
    await expect4xx(`${repo}/branches/${ref}`);
    await expect4xx(`${repo}/commits/${ref}/status`);
    await expect4xx(`${repo}/commits/${ref}/statuses`);
    await expect4xx(`${repo}/releases/tags/${ref}`);
  });
});

describe('numbers in paths and queries', () => {
  // Ajv's coercion reads `1e309` as Infinity, which passes an integer schema with a maximum.
  const huge = ['1e309', '-1e309', '1E400'];
  it.each(huge)('answers 422 for %s wherever a number is expected', async (value) => {
    for (const path of [
      `${repo}/pulls/${value}`,
      `${repo}/pulls/${value}/comments`,
      `${repo}/actions/runs/${value}`,
      `${repo}/actions/runs/${value}/jobs`,
      `${repo}/actions/jobs/${value}/logs`,
    ]) {
      await expect4xx(path, {}, 422);
    }
  });
});

describe('paging values', () => {
  it.each([
    'page=0',
    'page=-1',
    'limit=100000',
    'limit=0',
    'limit=-5',
    'page=abc&limit=xyz',
    'page=1.5&limit=2e3',
    'page=99999999999',
    'page=&limit=',
  ])('falls back to Gitea’s defaults for %s', async (query) => {
    for (const path of ['/repos', `${repo}/branches`, `${repo}/releases`, `${repo}/labels`]) {
      const response = await api(`${path}?${query}`);
      expect(response.status, `${path}?${query}`).toBe(200);
      expect(Array.isArray(await json(response))).toBe(true);
    }
  });

  it('answers a repeated parameter with 200 or 422, never more', async () => {
    for (const path of ['/repos', `${repo}/branches`, `${repo}/releases`]) {
      const response = await api(`${path}?page=1&page=2&limit=1&limit=2`);
      expect([200, 422], path).toContain(response.status);
    }
  });

  it('caps limit at 50', async () => {
    const response = await api(`${repo}/branches?limit=100000`);
    expect(response.headers.get('link') ?? '').not.toContain('limit=100000');
  });

  it('answers 422 for a paging value longer than any number', async () => {
    await expect4xx(`${repo}/branches?page=${'9'.repeat(40)}`, {}, 422);
  });
});

describe('request bodies', () => {
  const writes = (): Array<[string, string]> => [
    ['POST', `${repo}/releases`],
    ['PATCH', `${repo}/releases/tags/v1`],
    ['POST', `${repo}/statuses/b0`],
  ];

  it('answers 400 for malformed JSON', async () => {
    for (const [method, path] of writes()) {
      for (const body of ['{', '{"tag_name": }', 'null x', '\u0000']) {
        await expect4xx(path, { token: alice.token, method, body }, 400);
      }
    }
  });

  it('answers 422 for wrong types and missing fields', async () => {
    const cases: Array<[string, string, unknown]> = [
      ['POST', `${repo}/releases`, {}],
      ['POST', `${repo}/releases`, { tag_name: 5 }],
      ['POST', `${repo}/releases`, { tag_name: '' }],
      ['POST', `${repo}/releases`, { tag_name: 'v1', prerelease: 'yes' }],
      ['POST', `${repo}/releases`, { tag_name: 'v1', body: ['x'] }],
      ['POST', `${repo}/releases`, ['v1']],
      ['POST', `${repo}/releases`, 'v1'],
      ['POST', `${repo}/statuses/b0`, { state: 1 }],
      ['POST', `${repo}/statuses/b0`, {}],
      ['POST', `${repo}/statuses/b0`, { state: 'success', context: {} }],
    ];
    for (const [method, path, body] of cases) {
      await expect4xx(path, { token: alice.token, method, body: JSON.stringify(body) }, 422);
    }
  });

  it('answers 413 for a body over the limit', async () => {
    const huge = JSON.stringify({ tag_name: 'v1', body: 'x'.repeat(200 * 1024) });
    for (const [method, path] of writes()) {
      await expect4xx(path, { token: alice.token, method, body: huge }, 413);
    }
  });

  it('answers 4xx for a body that is not JSON at all', async () => {
    await expect4xx(`${repo}/releases`, {
      token: alice.token,
      method: 'POST',
      body: 'tag_name=v1',
      headers: { 'content-type': 'text/plain' },
    });
  });
});
