/**
 * The admin area over real HTTP: missing (404) to everyone but instance administrators; the
 * overview's counts; people listed with search and paging, disabled (their sign-in, session and
 * tokens stop working at once) and enabled again; administrators made and unmade in the
 * database while SERVICE_ADMIN_HANDLES stays authoritative for the handles it lists; and every
 * repository, private ones included, with its size and a way to its deletion.
 */
import { describe, expect, it } from 'vitest';
import { Browser as Anonymous, apiCall, type Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { makeRepo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let people: Record<'member' | 'other', Person>;
let root: { password: string };
let admin: Browser;

useWorld({ env: { SERVICE_ADMIN_HANDLES: 'root' }, people: ['member', 'other'] }, async (world) => {
  kiln = world.kiln;
  people = world.people;
  const made = await kiln.make.user({ handle: 'root' });
  root = { password: made.password };
  admin = await signedIn(kiln, 'root', made.password);
});

async function landing(browser: Browser, response: Response): Promise<string> {
  expect(response.status).toBe(303);
  return page(browser, response.headers.get('location') ?? '/');
}

async function signInStatus(login: string, password: string): Promise<number> {
  const browser = new Anonymous(kiln.url);
  await browser.get('/login');
  return (await browser.post('/login', { login, password })).status;
}

const PAGES = ['/admin', '/admin/users', '/admin/repos', '/admin/runners', '/admin/housekeeping'];

describe('the admin area', () => {
  it('is missing to visitors and to people who do not administer', async () => {
    const member = await signedIn(kiln, people.member.user.handle, people.member.password);
    for (const browser of [new Anonymous(kiln.url), member]) {
      for (const path of PAGES) expect((await browser.get(path)).status, path).toBe(404);
      const post = await browser.post(`/admin/users/${people.other.user.handle}/disable`, {});
      expect(post.status).toBe(404);
    }
    expect(await kiln.app.services.users.isDisabled(people.other.user)).toBe(false);
  });

  it('shows counts, version and one navigation on every page', async () => {
    await kiln.make.org(people.member.user, 'admin-org');
    const overview = await page(admin, '/admin');
    expect(overview).toMatch(/<span[^>]*>3<\/span><span class="color-fg-muted">Users<\/span>/);
    expect(overview).toMatch(/<span[^>]*>1<\/span><span class="color-fg-muted">Organisations/);
    expect(overview).toContain('Uptime');
    for (const path of PAGES) {
      const text = await page(admin, path);
      for (const link of ['/admin/users', '/admin/repos', '/admin/runners', '/admin/hooks']) {
        expect(text, `${path} links ${link}`).toContain(`href="${link}"`);
      }
      expect(text).toContain(`href="${path}" aria-current="page"`);
    }
  });

  it('lists people with search and paging', async () => {
    for (let i = 0; i < 31; i++)
      await kiln.make.user({ handle: `crowd${String(i).padStart(2, '0')}` });
    const first = await page(admin, '/admin/users?q=crowd');
    expect(first).toContain('crowd00');
    expect(first).not.toContain('crowd30');
    expect(first).not.toContain(`>${people.member.user.handle}<`);
    expect(first).toContain('href="/admin/users?q=crowd&amp;page=2"');
    const second = await page(admin, '/admin/users?q=crowd&page=2');
    expect(second).toContain('crowd30');
    expect(second).not.toContain('crowd00');
  });
});

describe('disabling a person', () => {
  it('ends their session and tokens and refuses their sign-in, until enabled', async () => {
    const { user, password, token } = people.other;
    const browser = await signedIn(kiln, user.handle, password);
    expect((await browser.get('/settings')).status).toBe(200);
    expect((await apiCall(kiln.url, '/user', { token })).status).toBe(200);

    const done = await admin.post(`/admin/users/${user.handle}/disable`, {});
    expect(await landing(admin, done)).toContain(`${user.handle} is disabled`);
    expect((await browser.get('/settings')).status).toBe(303);
    expect((await apiCall(kiln.url, '/user', { token })).status).toBe(401);
    expect(await signInStatus(user.handle, password)).not.toBe(303);

    await landing(admin, await admin.post(`/admin/users/${user.handle}/enable`, {}));
    expect((await apiCall(kiln.url, '/user', { token })).status).toBe(200);
    expect(await signInStatus(user.handle, password)).toBe(303);
  });

  it('refuses to disable oneself, and a post without the CSRF token', async () => {
    const self = await admin.post('/admin/users/root/disable', {});
    expect(await landing(admin, self)).toContain('cannot disable yourself');
    const forged = await admin.post(
      `/admin/users/${people.other.user.handle}/disable`,
      {},
      { csrf: false },
    );
    expect(forged.status).toBe(403);
    expect(await kiln.app.services.users.isDisabled(people.other.user)).toBe(false);
    expect(await signInStatus('root', root.password)).toBe(303);
  });
});

describe('SERVICE_ADMIN_HANDLES', () => {
  it('are kept from organisations, as from sign-up', async () => {
    const member = await signedIn(kiln, people.member.user.handle, people.member.password);
    const response = await member.post('/org/create', { name: 'ROOT' });
    expect(response.status).toBe(422);
    expect(await response.text()).toContain('reserved');
  });
});

describe('administrators in the database', () => {
  it('are made and unmade here, and the listed handles stay', async () => {
    const { user, password } = people.member;
    const browser = await signedIn(kiln, user.handle, password);
    expect((await browser.get('/admin')).status).toBe(404);

    await landing(admin, await admin.post(`/admin/users/${user.handle}/make-admin`, {}));
    expect((await browser.get('/admin')).status).toBe(200);
    expect(await page(browser, '/')).toContain('href="/admin"');
    // A stored administrator may act as one: here, on the listed handle, which stays.
    const listed = await browser.post('/admin/users/root/revoke-admin', {});
    expect(await landing(browser, listed)).toContain('SERVICE_ADMIN_HANDLES');
    expect((await admin.get('/admin')).status).toBe(200);

    await landing(admin, await admin.post(`/admin/users/${user.handle}/revoke-admin`, {}));
    expect((await browser.get('/admin')).status).toBe(404);
  });
});

describe('repositories', () => {
  it('lists every repository, private ones included, with size and deletion link', async () => {
    await makeRepo(kiln, people.member.user, 'secret-plans', { private: true });
    await makeRepo(kiln, people.other.user, 'open-book');
    const list = await page(admin, '/admin/repos?q=secret');
    expect(list).toContain('secret-plans');
    expect(list).not.toContain('open-book');
    expect(list).toContain('private');
    expect(list).toMatch(/\d+(\.\d+)? (B|KiB|kB|KB)/);
    expect(list).toContain(
      `href="/repos/${people.member.user.handle}/secret-plans/settings#danger"`,
    );
    expect(await page(admin, '/admin/repos')).toContain('open-book');
  });
});
