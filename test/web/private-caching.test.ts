/**
 * Answers to a signed-in caller — pages, REST, diffs, archives, git — carry
 * `Cache-Control: private, no-store`, so no shared cache keeps a private page for someone else;
 * anonymous answers about public things keep what they had, and static assets stay cacheable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, makeRepo } from './fixtures.ts';

let kiln: TestServer;
let cookie: string;
let token: string;
let secretTip = '';

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_PROTECT_ENABLED: 'false' });
  const made = await kiln.make.userWithToken({ handle: 'keeper' });
  token = made.token;
  const user = made.user;
  cookie = `kiln_session=${(await kiln.app.services.sessions.start(user)).secret}`;
  for (const [name, hidden] of [
    ['open', false],
    ['secret', true],
  ] as const) {
    const repo = await makeRepo(kiln, user, name, { private: hidden });
    const root = await commitTo(kiln, repo, { branch: 'main', files: { 'a.txt': 'one\n' } });
    await commitTo(kiln, repo, { branch: 'topic', parents: [root], files: { 'a.txt': 'two\n' } });
    if (hidden) secretTip = root;
    await kiln.app.services.pulls.create(user, 'keeper', name, {
      title: 'T',
      head: 'topic',
      base: 'main',
    });
  }
});
afterAll(async () => {
  await kiln?.close();
});

async function cacheControl(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${kiln.url}${path}`, { headers, redirect: 'manual' });
  await response.arrayBuffer();
  return { status: response.status, value: response.headers.get('cache-control') };
}

const asSession = () => ({ cookie });
const asToken = () => ({ authorization: `token ${token}` });
const asBasic = () => ({
  authorization: `Basic ${Buffer.from(`keeper:${token}`).toString('base64')}`,
});

describe('answers to a signed-in caller', () => {
  it.each([
    ['the repository page', '/repos/keeper/secret', asSession],
    ['a private diff', '/repos/keeper/secret/pulls/1.diff', asSession],
    ['a public pull page', '/repos/keeper/open/pulls/1', asSession],
    ['the start page', '/', asSession],
    ['a missing page', '/repos/keeper/nothing-here', asSession],
    ['an archive', '/repos/keeper/secret/archive/main.zip', asSession],
    ['the REST API', '/api/v1/repos/keeper/secret', asToken],
    ['a raw file at a commit', '/repos/keeper/open/raw/main/a.txt', asSession],
    ['a clone advertisement', '/keeper/secret.git/info/refs?service=git-upload-pack', asBasic],
  ])('are private, no-store: %s', async (_what, path, headers) => {
    const { status, value } = await cacheControl(path, headers());
    expect(status).toBeLessThan(500);
    expect(value?.startsWith('private, no-store')).toBe(true);
    expect(value).not.toContain('max-age=3');
  });

  it('keep git’s own no-cache after the two', async () => {
    const { value } = await cacheControl(
      '/keeper/secret.git/info/refs?service=git-upload-pack',
      asBasic(),
    );
    expect(value).toBe('private, no-store, no-cache, must-revalidate');
  });

  it('are private, no-store when git writes the pack into the connection itself', async () => {
    const line = (text: string) => `${(text.length + 4).toString(16).padStart(4, '0')}${text}`;
    const response = await fetch(`${kiln.url}/keeper/secret.git/git-upload-pack`, {
      method: 'POST',
      headers: { ...asBasic(), 'content-type': 'application/x-git-upload-pack-request' },
      body: `${line(`want ${secretTip}\n`)}0000${line('done\n')}`,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('close');
    expect(response.headers.get('cache-control')).toMatch(/^private, no-store/);
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(0, 12)
        .toString(),
    ).toBe('0008NAK\nPACK');
  });

  it('leave static assets shareable', async () => {
    expect((await cacheControl('/assets/kiln.css', asSession())).value).toBe(
      'public, max-age=3600',
    );
  });
});

describe('anonymous answers', () => {
  it('keep what their route chose', async () => {
    expect((await cacheControl('/repos/keeper/open')).value).toBeNull();
    expect((await cacheControl('/api/v1/repos/keeper/open')).value).toBeNull();
    expect((await cacheControl('/repos/keeper/open/archive/main.zip')).value).toBe(
      'private, no-cache',
    );
    expect(
      (await cacheControl('/keeper/open.git/info/refs?service=git-upload-pack')).value,
    ).toContain('no-cache');
  });
});
