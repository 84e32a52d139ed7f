/**
 * Addresses people bring from Gitea lead to Kiln's pages: fixed aliases with 301, a
 * repository's addresses with 302 to whoever may see it (query strings kept), and 404 for a
 * private or missing repository, exactly as the repository page itself answers. Git over HTTP
 * below `/{owner}/{name}.git` keeps working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { makeRepo, signedIn } from './fixtures.ts';

let kiln: TestServer;
let owner: User;
let password: string;

beforeAll(async () => {
  kiln = await startTestServer();
  ({ user: owner, password } = await kiln.make.user());
  await makeRepo(kiln, owner, 'open');
  await makeRepo(kiln, owner, 'hidden', { private: true });
});
afterAll(async () => {
  await kiln?.close();
});

async function where(browser: Browser, path: string): Promise<[number, string | null]> {
  const response = await browser.get(path);
  await response.arrayBuffer();
  return [response.status, response.headers.get('location')];
}

describe("Gitea's addresses", () => {
  it('fixed pages redirect permanently, keeping the query string', async () => {
    const browser = new Browser(kiln.url);
    expect(await where(browser, '/user/login?redirect_to=%2Fx')).toEqual([
      301,
      '/login?redirect_to=%2Fx',
    ]);
    expect(await where(browser, '/user/sign_up')).toEqual([301, '/signup']);
    expect(await where(browser, '/user/settings')).toEqual([301, '/settings']);
    expect(await where(browser, '/user/settings/applications')).toEqual([301, '/settings/tokens']);
    expect(await where(browser, '/explore/repos?page=2')).toEqual([301, '/explore?page=2']);
    // The admin area is missing to anyone but an instance admin (test/authz: admins get 200).
    expect(await where(browser, '/admin')).toEqual([404, null]);
  });

  it("a repository's addresses redirect to its pages for whoever may see it", async () => {
    const o = owner.handle;
    const anonymous = new Browser(kiln.url);
    expect(await where(anonymous, `/${o}/open?tab=1`)).toEqual([302, `/repos/${o}/open?tab=1`]);
    expect(await where(anonymous, `/${o}/open/pulls/3`)).toEqual([302, `/repos/${o}/open/pulls/3`]);
    expect(await where(anonymous, `/${o}/open/src/branch/main/docs/a%20b.md`)).toEqual([
      302,
      `/repos/${o}/open/src/main/docs/a%20b.md`,
    ]);
    expect(await where(anonymous, `/${o}/open/releases/tag/v1.0`)).toEqual([
      302,
      `/repos/${o}/open/releases/tag/v1.0`,
    ]);
    const me = await signedIn(kiln, o, password);
    expect(await where(me, `/${o}/hidden/pulls/1`)).toEqual([302, `/repos/${o}/hidden/pulls/1`]);
  });

  it('a private or missing repository answers 404, as its own page does', async () => {
    const o = owner.handle;
    const anonymous = new Browser(kiln.url);
    for (const path of [
      `/${o}/hidden`,
      `/${o}/hidden/pulls/1`,
      `/${o}/hidden/src/branch/main/x`,
      `/${o}/hidden/releases/tag/v1`,
      `/${o}/nothing`,
      `/${o}/nothing/pulls/1`,
    ]) {
      expect((await where(anonymous, path))[0], path).toBe(404);
    }
  });

  it('git over HTTP below /{owner}/{name}.git still works', async () => {
    const git = await GitClient.create();
    try {
      const token = await kiln.make.token(owner);
      const url = repoUrl(kiln.url, owner.handle, 'open', { token, as: 'password' });
      const work = await git.init();
      await git.commit(work, { 'a.txt': '1\n' }, 'one');
      await git.ok(['push', '-q', url, 'main'], { cwd: work });
      expect(await git.ok(['ls-remote', url])).toContain('refs/heads/main');
    } finally {
      await git.dispose();
    }
  });
});
