/**
 * Whatever people put in a repository is text on every page: a description, a file name, a
 * branch name, a commit message and a README carrying markup all render inert.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, makeRepo, page } from './fixtures.ts';

const EVIL = '<script>alert(1)</script>';
const FILE = '<svg onload=alert(2)>.txt';
let kiln: TestServer;
let sha: string;

/** The page has no markup but ours: the one script tag of the layout, no injected elements. */
function expectInert(body: string): void {
  expect(body.match(/<script/g)).toEqual(['<script']);
  expect(body).toContain('<script src="/assets/kiln.js" defer></script>');
  expect(body).not.toMatch(/<img[^>]*onerror/i);
  expect(body).not.toMatch(/<svg onload/i);
  expect(body).not.toContain('<b>bold</b>');
  expect(body).not.toMatch(/\sstyle=/);
}

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_PROTECT_ENABLED: 'false' });
  const { user } = await kiln.make.user({ handle: 'eve' });
  const repo = await makeRepo(kiln, user, 'evil', { description: `${EVIL}<b>bold</b>` });
  sha = await commitTo(kiln, repo, {
    branch: 'main',
    files: {
      'README.md': `# Hello\n\n${EVIL}\n\n<img src=x onerror=alert(3)>\n\n[click](javascript:alert(4))\n\n| a | b |\n|--:|:-:|\n| 1 | 2 |\n`,
      [FILE]: `${EVIL}\n`,
      'code.html': `<div>${EVIL}</div>\n`,
    },
    message: `${EVIL} in the title\n\n<b>bold</b> in the body\n`,
  });
  await commitTo(kiln, repo, {
    branch: 'x<b>bold</b>',
    parents: [sha],
    files: { 'other.txt': 'x\n' },
  });
});
afterAll(async () => {
  await kiln?.close();
});

describe('markup in repository content', () => {
  const encodedFile = encodeURIComponent(FILE);
  it.each([
    ['the repository home', () => '/repos/eve/evil'],
    ['a file named with markup', () => `/repos/eve/evil/src/main/${encodedFile}`],
    ['an HTML file', () => '/repos/eve/evil/src/main/code.html'],
    ['the history', () => '/repos/eve/evil/commits/main'],
    ['the commit', () => `/repos/eve/evil/commit/${sha}`],
    ['the branches', () => '/repos/eve/evil/branches'],
    [
      'a branch named with markup',
      () => `/repos/eve/evil/src/${encodeURIComponent('x<b>bold</b>')}`,
    ],
    ['the owner page', () => '/eve'],
    ['explore', () => '/explore'],
  ])('renders inert on %s', async (_name, path) => {
    const body = await page(new Browser(kiln.url), path());
    expectInert(body);
  });

  it('shows the markup as text', async () => {
    const home = await page(new Browser(kiln.url), '/repos/eve/evil');
    expect(home).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;');
    expect(home).toContain('&lt;svg onload=alert(2)&gt;.txt');
    expect(home).not.toContain('href="javascript:');
    const commit = await page(new Browser(kiln.url), `/repos/eve/evil/commit/${sha}`);
    expect(commit).toContain('&lt;script&gt;alert(1)&lt;/script&gt; in the title');
  });

  it('serves a raw HTML file as plain text in a sandbox', async () => {
    const response = await new Browser(kiln.url).get('/repos/eve/evil/raw/main/code.html');
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
  });
});
