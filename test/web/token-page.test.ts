/**
 * The tokens page with scopes and expiry: a token made with chosen scopes and an expiry can do
 * what they allow and no more, the list shows its scopes and expiry, bad choices are refused
 * with a message, and revoking asks first on a page of its own (no JavaScript needed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { page, signedIn } from './fixtures.ts';

let kiln: TestServer;
beforeAll(async () => {
  kiln = await startTestServer();
});
afterAll(async () => {
  await kiln?.close();
});

describe('the tokens page', () => {
  it('makes a token with the chosen scopes and expiry, and lists both', async () => {
    const { user, password } = await kiln.make.user();
    const browser = await signedIn(kiln, user.handle, password);
    const created = await browser.post('/settings/tokens', {
      name: 'ci',
      scope: ['read:user', 'read:repository'],
      expiry: '30',
    });
    expect(created.status).toBe(201);
    const text = await created.text();
    const token = text.match(/<code id="new-token">([0-9a-f]{40})<\/code>/)?.[1] ?? '';
    expect((await apiCall(kiln.url, '/user', { token })).status).toBe(200);
    const refused = await apiCall(kiln.url, '/user/repos', {
      method: 'POST',
      token,
      body: { name: 'nope' },
    });
    expect(refused.status).toBe(403);

    const listing = await page(browser, '/settings/tokens');
    expect(listing).toContain('read:repository, read:user');
    const [record] = await kiln.app.services.tokens.list(user);
    const day = record?.expiresAt?.toISOString().slice(0, 10);
    expect(day).toBeDefined();
    expect(listing).toContain(`expires ${day}`);
  });

  it('refuses a token without scopes and a custom date that is no date', async () => {
    const { user, password } = await kiln.make.user();
    const browser = await signedIn(kiln, user.handle, password);
    const none = await browser.post('/settings/tokens', { name: 'empty', expiry: 'never' });
    expect(none.status).toBe(422);
    expect(await none.text()).toContain('access token must have a scope');
    const bad = await browser.post('/settings/tokens', {
      name: 'bad-date',
      scope: 'all',
      expiry: 'custom',
      expires_on: '2031-02-31',
    });
    expect(bad.status).toBe(422);
    const custom = await browser.post('/settings/tokens', {
      name: 'dated',
      scope: 'all',
      expiry: 'custom',
      expires_on: '2031-02-28',
    });
    expect(custom.status).toBe(201);
    const [record] = await kiln.app.services.tokens.list(user);
    expect(record?.expiresAt?.toISOString()).toBe('2031-03-01T00:00:00.000Z');
    expect(await kiln.app.services.tokens.list(user)).toHaveLength(1);
  });

  it('asks before revoking, on a page that works without JavaScript', async () => {
    const { user, password } = await kiln.make.user();
    const token = await kiln.make.token(user, 'laptop');
    const [record] = await kiln.app.services.tokens.list(user);
    const browser = await signedIn(kiln, user.handle, password);
    const confirm = await page(browser, `/settings/tokens/${record?.id}/delete`);
    expect(confirm).toContain('Revoke token laptop?');
    expect(confirm).toContain(`action="/settings/tokens/${record?.id}/delete"`);
    expect((await apiCall(kiln.url, '/user', { token })).status).toBe(200);

    const other = await kiln.make.user();
    const stranger = await signedIn(kiln, other.user.handle, other.password);
    expect((await stranger.get(`/settings/tokens/${record?.id}/delete`)).status).toBe(404);

    // A post without the confirmation only asks again; the token keeps working.
    const unconfirmed = await browser.post(`/settings/tokens/${record?.id}/delete`, {});
    expect(unconfirmed.status).toBe(200);
    expect(await unconfirmed.text()).toContain('Revoke token laptop?');
    expect((await apiCall(kiln.url, '/user', { token })).status).toBe(200);
    const revoked = await browser.post(`/settings/tokens/${record?.id}/delete`, { confirm: 'yes' });
    expect(revoked.status).toBe(303);
    expect((await apiCall(kiln.url, '/user', { token })).status).toBe(401);
  });

  it('offers only the scopes of what Kiln has', async () => {
    const { user, password } = await kiln.make.user();
    const browser = await signedIn(kiln, user.handle, password);
    const html = await page(browser, '/settings/tokens');
    const offered = [...html.matchAll(/name="scope" value="([^"]+)"/g)].map((m) => m[1]);
    expect(offered).toEqual([
      'all',
      ...['repository', 'organization', 'user', 'admin'].flatMap((c) => [
        `read:${c}`,
        `write:${c}`,
      ]),
    ]);
    for (const missing of ['issue', 'package', 'notification']) {
      expect(html).not.toContain(`:${missing}"`);
    }
  });
});
