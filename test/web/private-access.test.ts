/**
 * Private repositories are 404 to anyone who may not see them, on every page and form, exactly
 * as if they did not exist; collaborators see them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from '../support/http.ts';
import { Browser as Anonymous } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let outsider: Browser;
let collaborator: Browser;
let sha: string;

const PAGES = () => [
  '/repos/vault/safe',
  '/repos/vault/safe/src/main',
  '/repos/vault/safe/src/main/secret.txt',
  '/repos/vault/safe/raw/main/secret.txt',
  '/repos/vault/safe/commits/main',
  '/repos/vault/safe/commits/main/secret.txt',
  `/repos/vault/safe/commit/${sha}`,
  '/repos/vault/safe/branches',
  '/repos/vault/safe/tags',
  '/repos/vault/safe/releases',
  '/repos/vault/safe/settings',
];

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_PROTECT_ENABLED: 'false' });
  const { user: owner } = await kiln.make.user({ handle: 'vault' });
  const { repo } = await kiln.app.services.repos.create(owner, { name: 'safe', private: true });
  sha = await commitTo(kiln, repo, { branch: 'main', files: { 'secret.txt': 'TOPSECRET\n' } });
  const other = await kiln.make.user();
  outsider = await signedIn(kiln, other.user.handle, other.password);
  const friend = await kiln.make.user();
  await kiln.app.services.collaborators.put(owner, 'vault', 'safe', friend.user.handle, 'read');
  collaborator = await signedIn(kiln, friend.user.handle, friend.password);
});
afterAll(async () => {
  await kiln?.close();
});

describe('a private repository', () => {
  it('is 404 on every page for anonymous visitors and outsiders', async () => {
    for (const path of PAGES()) {
      for (const browser of [new Anonymous(kiln.url), outsider]) {
        const response = await browser.get(path);
        // Settings send anonymous visitors to sign in first; everything else is simply absent.
        const expected = path.endsWith('/settings') && browser !== outsider ? 303 : 404;
        expect([path, response.status]).toEqual([path, expected]);
        expect(await response.text()).not.toContain('TOPSECRET');
      }
    }
  });

  it('is 404 to outsiders on every form', async () => {
    for (const path of [
      '/repos/vault/safe/fork',
      '/repos/vault/safe/settings',
      '/repos/vault/safe/settings/collaborators',
      '/repos/vault/safe/settings/collaborators/delete',
      '/repos/vault/safe/settings/branches',
      '/repos/vault/safe/settings/branches/delete',
      '/repos/vault/safe/settings/delete',
    ]) {
      const response = await outsider.post(path, {
        confirm: 'vault/safe',
        username: 'x',
        branch: 'main',
      });
      expect([path, response.status]).toEqual([path, 404]);
    }
  });

  it('is not listed to outsiders', async () => {
    expect(await page(outsider, '/vault')).not.toContain('safe');
    expect(await page(outsider, '/explore')).not.toContain('vault/safe');
  });

  it('is readable by a collaborator, whose settings page is 403', async () => {
    for (const path of PAGES()) {
      const response = await collaborator.get(path);
      expect([path, response.status]).toEqual([path, path.endsWith('/settings') ? 403 : 200]);
    }
  });
});
