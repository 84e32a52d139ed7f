/**
 * History and commit pages: pages of 30 commits with ?page=, history of one path, a commit with
 * its message, parents, file list and hunks, a notice when a diff is cut, 404 for bad ids, and
 * both pages metered by bot protection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repository } from '../../src/domain/repos/repo.types.ts';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, makeRepo, page } from './fixtures.ts';

let kiln: TestServer;
let repo: Repository;
const shas: string[] = [];
const anonymous = () => new Browser(kiln.url);

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_PROTECT_ENABLED: 'false' });
  const { user } = await kiln.make.user({ handle: 'hist' });
  repo = await makeRepo(kiln, user, 'log');
  for (let i = 1; i <= 35; i++) {
    const files: Record<string, string> = { 'counter.txt': `${i}\n` };
    if (i % 10 === 0) files[`docs/note-${i}.md`] = `note ${i}\n`;
    shas.push(
      await commitTo(kiln, repo, {
        branch: 'main',
        files,
        message: `Commit number ${i}\n\nBody of commit ${i}.\n`,
        time: 1_700_000_000 + i * 3600,
      }),
    );
  }
});
afterAll(async () => {
  await kiln?.close();
});

describe('/commits/{ref}', () => {
  it('shows the newest 30 commits and links to the next page', async () => {
    const body = await page(anonymous(), '/repos/hist/log/commits/main');
    expect(body).toContain('Commit number 35');
    expect(body).toContain('Commit number 6<');
    expect(body).not.toContain('Commit number 5<');
    expect(body).toContain('href="/repos/hist/log/commits/main?page=2"');
    const second = await page(anonymous(), '/repos/hist/log/commits/main?page=2');
    expect(second).toContain('Commit number 5<');
    expect(second).toContain('Commit number 1<');
    expect(second).toContain('href="/repos/hist/log/commits/main"');
    expect(second).not.toContain('?page=3');
  });

  it('reads a bad page number as the first page and a far one as empty', async () => {
    expect(await page(anonymous(), '/repos/hist/log/commits/main?page=abc')).toContain(
      'Commit number 35',
    );
    expect(await page(anonymous(), '/repos/hist/log/commits/main?page=999')).toContain(
      'No more commits.',
    );
  });

  it('narrows the history to a path', async () => {
    const body = await page(anonymous(), '/repos/hist/log/commits/main/docs');
    expect(body).toContain('Commit number 30');
    expect(body).toContain('Commit number 10<');
    expect(body).not.toContain('Commit number 35');
  });

  it('redirects /commits to the default branch', async () => {
    const response = await anonymous().get('/repos/hist/log/commits');
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/repos/hist/log/commits/main');
  });

  it.each([
    '/repos/hist/log/commits/nope',
    '/repos/hist/log/commits/main/never-existed',
    '/repos/hist/log/commits/main/../x',
    '/repos/hist/log/commits/ma..in',
  ])('answers 404 for %s', async (path) => {
    expect((await anonymous().get(path)).status).toBe(404);
  });
});

describe('/commit/{sha}', () => {
  it('shows message, author, parents and the diff', async () => {
    const sha = shas[9]!;
    const body = await page(anonymous(), `/repos/hist/log/commit/${sha}`);
    expect(body).toContain('Commit number 10');
    expect(body).toContain('Body of commit 10.');
    expect(body).toContain(sha);
    expect(body).toContain(`href="/repos/hist/log/commit/${shas[8]}"`);
    expect(body).toContain('2 changed files');
    expect(body).toContain('href="#diff-0"');
    expect(body).toContain('docs/note-10.md');
    expect(body).toContain('@@ -1 +1 @@');
    expect(body).toMatch(/class="kiln-del"[\s\S]*9/);
    expect(body).toMatch(/class="kiln-add"[\s\S]*10/);
    expect(body).toContain(`href="/repos/hist/log/src/${sha}"`);
  });

  it('reads through the repository cat-file process, the same one each time', async () => {
    const handle = kiln.app.services.repos.handle(repo);
    await page(anonymous(), `/repos/hist/log/commit/${shas[3]}`);
    const pid = kiln.app.git.catFiles.pidOf(handle);
    expect(pid).toBeDefined();
    await page(anonymous(), `/repos/hist/log/commit/${shas[4]}`);
    await page(anonymous(), '/repos/hist/log/commits/main');
    expect(kiln.app.git.catFiles.pidOf(handle)).toBe(pid);
  });

  it('accepts an abbreviated id and says root commit for the first', async () => {
    const body = await page(anonymous(), `/repos/hist/log/commit/${shas[0]!.slice(0, 8)}`);
    expect(body).toContain('root commit');
  });

  it('says when a large diff is cut', async () => {
    const { user } = await kiln.make.user();
    const wide = await makeRepo(kiln, user, 'wide');
    const files: Record<string, string> = {};
    for (let i = 0; i < 320; i++) files[`f${String(i).padStart(3, '0')}.txt`] = `line ${i}\n`;
    const sha = await commitTo(kiln, wide, { branch: 'main', files, message: 'Many files\n' });
    const body = await page(anonymous(), `/repos/${user.handle}/wide/commit/${sha}`);
    expect(body).toContain('320 changed files');
    expect(body).toContain('This diff is large');
    expect(body).not.toContain('f310.txt</h3>');
  });

  it.each(['zzzz', 'main', '0000000000', 'abc'])('answers 404 for /commit/%s', async (id) => {
    expect((await anonymous().get(`/repos/hist/log/commit/${id}`)).status).toBe(404);
  });
});

describe('metering', () => {
  it('meters the history and commit pages, not the code pages', async () => {
    const metered = await startTestServer({ SERVICE_PROTECT_ANONYMOUS_BUDGET: '2' });
    try {
      const { user } = await metered.make.user({ handle: 'm' });
      const small = await makeRepo(metered, user, 'r');
      const sha = await commitTo(metered, small, { branch: 'main', files: { a: '1\n' } });
      const browser = new Browser(metered.url);
      const statuses = [];
      for (const path of [
        '/repos/m/r/commits/main',
        `/repos/m/r/commit/${sha}`,
        '/repos/m/r/commits/main',
      ]) {
        statuses.push((await browser.get(path)).status);
      }
      expect(statuses).toEqual([200, 200, 429]);
      expect((await browser.get('/repos/m/r/src/main/a')).status).toBe(200);
      expect((await browser.get('/repos/m/r')).status).toBe(200);
    } finally {
      await metered.close();
    }
  });
});
