/**
 * A person's sign-ins as they see and control them: the sessions page lists each browser (when
 * it signed in, when it was last used, its user agent, which one is "this session"), revokes one
 * or every other, and a password change ends every sign-in but the one that made it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
beforeAll(async () => {
  kiln = await startTestServer();
});
afterAll(async () => {
  await kiln?.close();
});

async function signIn(login: string, password: string, userAgent: string): Promise<Browser> {
  const browser = new Browser(kiln.url, { 'user-agent': userAgent });
  await browser.get('/login');
  const response = await browser.post('/login', { login, password });
  expect(response.status).toBe(303);
  return browser;
}

/** Whether the browser's session cookie still signs it in. */
async function signedIn(browser: Browser): Promise<boolean> {
  return (await browser.get('/settings/sessions')).status === 200;
}

describe('/settings/sessions', () => {
  it('lists every sign-in with its browser and marks this one', async () => {
    const { user, password } = await kiln.make.user();
    const laptop = await signIn(user.handle, password, 'Laptop/1.0 (Kiln test)');
    await signIn(user.handle, password, 'Phone/2.0 <b>bold</b>');
    const page = await (await laptop.get('/settings/sessions')).text();
    expect(page).toContain('Laptop/1.0 (Kiln test)');
    expect(page).toContain('Phone/2.0 &lt;b&gt;bold&lt;/b&gt;');
    expect(page.match(/This session/g)).toHaveLength(1);
    expect(page.indexOf('This session')).toBeGreaterThan(page.indexOf('Laptop/1.0'));
    expect(page.match(/<time datetime=/g)?.length).toBe(4);
    expect(page.match(/\/revoke"/g)).toHaveLength(2); // the phone's, and "everywhere else"
  });

  it('revokes one session, and only the owner can', async () => {
    const { user, password } = await kiln.make.user();
    const laptop = await signIn(user.handle, password, 'Laptop');
    const phone = await signIn(user.handle, password, 'Phone');
    const other = await kiln.make.user();
    const stranger = await signIn(other.user.handle, other.password, 'Stranger');
    const page = await (await laptop.get('/settings/sessions')).text();
    const phoneId = /data-session="([^"]+)">\s*<div[^>]*>\s*<strong[^>]*>Phone</.exec(page)?.[1];
    expect(phoneId).toBeDefined();

    const foreign = await stranger.post(`/settings/sessions/${phoneId}/revoke`, {});
    expect(foreign.status).toBe(303);
    expect(await signedIn(phone)).toBe(true);

    const revoked = await laptop.post(`/settings/sessions/${phoneId}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(true);
  });

  it('signs out everywhere else', async () => {
    const { user, password } = await kiln.make.user();
    const browsers = [
      await signIn(user.handle, password, 'One'),
      await signIn(user.handle, password, 'Two'),
      await signIn(user.handle, password, 'Three'),
    ];
    const [here, ...others] = browsers as [Browser, Browser, Browser];
    const response = await here.post('/settings/sessions/others/revoke', {});
    expect(response.status).toBe(303);
    expect(await signedIn(here)).toBe(true);
    for (const browser of others) expect(await signedIn(browser)).toBe(false);
    expect(await (await here.get('/settings/sessions')).text()).toContain('everywhere else');
  });

  it('ends every other session when the password changes', async () => {
    const { user, password } = await kiln.make.user();
    const here = await signIn(user.handle, password, 'Here');
    const thief = await signIn(user.handle, password, 'Thief');
    const changed = await here.post('/settings/password', {
      current: password,
      password: 'a brand new secret',
      confirm: 'a brand new secret',
    });
    expect(changed.status).toBe(303);
    expect(await signedIn(here)).toBe(true);
    expect(await signedIn(thief)).toBe(false);
  });

  it('asks anonymous visitors to sign in', async () => {
    const response = await new Browser(kiln.url).get('/settings/sessions');
    expect(response.status).toBe(303);
  });
});
