/**
 * Personal settings without JavaScript: the profile (name and bio, shown on the person's page,
 * email never) and the password (current one required, confirmation must match).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { page, signedIn } from './fixtures.ts';

let kiln: TestServer;
beforeAll(async () => {
  kiln = await startTestServer();
});
afterAll(async () => {
  await kiln?.close();
});

describe('/settings', () => {
  it('asks anonymous visitors to sign in', async () => {
    for (const path of ['/settings', '/settings/password']) {
      const response = await new Browser(kiln.url).get(path);
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(`/login?redirect=${encodeURIComponent(path)}`);
    }
  });

  it('updates the profile shown on the person page', async () => {
    const { user, password } = await kiln.make.user({ handle: 'prof' });
    const browser = await signedIn(kiln, 'prof', password);
    expect(await page(browser, '/settings')).toContain('name="full_name"');
    const response = await browser.post('/settings', {
      full_name: 'Professor Plum',
      description: 'Studies <kilns>',
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/settings');
    expect(await page(browser, '/settings')).toContain('Profile updated.');
    const profile = await page(new Browser(kiln.url), '/prof');
    expect(profile).toContain('Professor Plum');
    expect(profile).toContain('Studies &lt;kilns&gt;');
    expect(profile).not.toContain(user.email);
    const tooLong = await browser.post('/settings', { full_name: 'x'.repeat(101) });
    expect(tooLong.status).toBe(422);
    expect(await tooLong.text()).toContain('at most 100 characters');
  });

  it('changes the password', async () => {
    const { password } = await kiln.make.user({ handle: 'pw' });
    const browser = await signedIn(kiln, 'pw', password);
    expect(await page(browser, '/settings/password')).toContain('autocomplete="current-password"');
    const wrong = await browser.post('/settings/password', {
      current: 'not it at all',
      password: 'a new secret',
      confirm: 'a new secret',
    });
    expect(wrong.status).toBe(422);
    expect(await wrong.text()).toContain('current password is wrong');
    const mismatch = await browser.post('/settings/password', {
      current: password,
      password: 'a new secret',
      confirm: 'another one',
    });
    expect(mismatch.status).toBe(422);
    const done = await browser.post('/settings/password', {
      current: password,
      password: 'a new secret',
      confirm: 'a new secret',
    });
    expect(done.status).toBe(303);
    expect(await page(browser, '/settings/password')).toContain('Password changed.');
    await signedIn(kiln, 'pw', 'a new secret');
    await expect(signedIn(kiln, 'pw', password)).rejects.toThrow(/401/);
  });
});
