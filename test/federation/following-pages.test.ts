import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { startTwoKilns } from './support.ts';

/**
 * A person signed in on Kiln A follows and stars things on Kiln B through the settings page,
 * naming them as `@user@host` or by URL, and the page shows what became of each follow.
 */
describe('following and starring from the fediverse settings page', () => {
  let a: TestServer;
  let b: TestServer;
  let browser: Browser;
  let authorHandle: string;
  let repoActor: string;

  const page = async () => {
    const response = await browser.get('/settings/federation');
    expect(response.status).toBe(200);
    return response.text();
  };
  /** The label shown on the row of `actor`, or undefined when there is no row. */
  const rowLabel = async (actor: string) => {
    const html = await page();
    const at = html.indexOf(`data-actor="${actor}"`);
    if (at < 0) return undefined;
    return /class="Label[^"]*">([^<]+)</.exec(html.slice(at))?.[1];
  };
  const starsOnB = async () =>
    (
      (await (await fetch(`${b.url}/api/v1/repos/${authorHandle}/tool`)).json()) as {
        stars_count: number;
      }
    ).stars_count;
  const followersOnB = async (path: string) =>
    (
      (await (await fetch(`${b.url}/federation/${path}/followers`)).json()) as {
        totalItems: number;
      }
    ).totalItems;

  beforeAll(async () => {
    ({ a, b, authorHandle, repoActor } = await startTwoKilns());
    const reader = await a.make.user();
    browser = new Browser(a.url);
    await browser.get('/login');
    const signedIn = await browser.post('/login', {
      login: reader.user.handle,
      password: reader.password,
    });
    expect(signedIn.status).toBe(303);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('sends a signed-out visitor to sign in', async () => {
    const response = await new Browser(a.url).get('/settings/federation');
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(/^\/login/);
  });

  it('follows a user named @user@host; the page shows the follow accepted', async () => {
    const host = new URL(b.url).host;
    const response = await browser.post('/settings/federation/follow', {
      actor: `@${authorHandle}@${host}`,
    });
    expect(response.status).toBe(303);
    const userActor = `${b.url}/${authorHandle}`;
    expect(await eventually(async () => (await rowLabel(userActor)) === 'following')).toBe(true);
    expect(await followersOnB(`users/${authorHandle}`)).toBe(1);
  });

  it('follows a repository by URL, then unfollows it', async () => {
    await browser.post('/settings/federation/follow', { actor: repoActor });
    expect(await eventually(async () => (await rowLabel(repoActor)) === 'following')).toBe(true);
    expect(await followersOnB(`repos/${authorHandle}/tool`)).toBe(1);
    const response = await browser.post('/settings/federation/unfollow', { actor: repoActor });
    expect(response.status).toBe(303);
    expect(await rowLabel(repoActor)).toBeUndefined();
    expect(
      await eventually(async () => (await followersOnB(`repos/${authorHandle}/tool`)) === 0),
    ).toBe(true);
  });

  it("stars a repository (B's count rises) and takes the star back", async () => {
    await browser.post('/settings/federation/star', { actor: repoActor });
    expect(await eventually(async () => (await starsOnB()) === 1)).toBe(true);
    expect(await rowLabel(repoActor)).toBe('starred');
    await browser.post('/settings/federation/unstar', { actor: repoActor });
    expect(await eventually(async () => (await starsOnB()) === 0)).toBe(true);
    expect(await rowLabel(repoActor)).toBeUndefined();
  });

  it("shows a follow the other server refused (B's own actor cannot be followed)", async () => {
    const instance = `${b.url}/federation/actor`;
    await browser.post('/settings/federation/follow', { actor: instance });
    expect(await eventually(async () => (await rowLabel(instance)) === 'refused')).toBe(true);
  });

  it('answers a name that leads nowhere with a message, not an error page', async () => {
    for (const actor of ['not a handle', `${b.url}/repos/${authorHandle}/missing`]) {
      const response = await browser.post('/settings/federation/follow', { actor });
      expect(response.status).toBe(303);
      const html = await page();
      expect(html).toMatch(/name a remote actor|could not be fetched/);
    }
    expect(await rowLabel(`${b.url}/repos/${authorHandle}/missing`)).toBeUndefined();
  });

  it("forks a repository of B by URL and lands on the fork, which names B's", async () => {
    const response = await browser.post('/settings/federation/fork', { actor: repoActor });
    expect(response.status).toBe(303);
    const location = response.headers.get('location') ?? '';
    expect(location).toMatch(/\/tool$/);
    const fork = await (await browser.get(location)).text();
    expect(fork).toContain(`forked from <a href="${repoActor}"`);
  });

  it('a fork of what is not a repository is refused with the reason on the page', async () => {
    const response = await browser.post('/settings/federation/fork', {
      actor: `${b.url}/${authorHandle}`,
    });
    expect(response.status).toBe(303);
    expect(await page()).toContain('is not a repository');
  });

  it('refuses a form without its CSRF token', async () => {
    const response = await browser.post(
      '/settings/federation/follow',
      { actor: repoActor },
      { csrf: false },
    );
    expect(response.status).toBe(403);
  });
});
