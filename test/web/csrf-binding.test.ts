/**
 * A signed-in form's CSRF token belongs to the session: a token pair an attacker chose (a
 * `kiln_csrf` cookie planted from a sibling subdomain plus the same value in the form) is
 * refused, and signing in again brings a different token.
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

async function signedIn(login: string, password: string): Promise<Browser> {
  const browser = new Browser(kiln.url);
  await browser.get('/login');
  expect((await browser.post('/login', { login, password })).status).toBe(303);
  return browser;
}

/** The token the page's forms carry. */
async function formToken(browser: Browser, path = '/settings'): Promise<string> {
  const page = await (await browser.get(path)).text();
  const token = /name="_csrf" value="([0-9a-f]{32})"/.exec(page)?.[1];
  expect(token).toBeDefined();
  return token!;
}

describe('CSRF tokens of signed-in forms', () => {
  it('refuses a cookie and field pair the attacker chose', async () => {
    const { user, password } = await kiln.make.user();
    const victim = await signedIn(user.handle, password);
    // What the attacker can obtain for themselves: a valid signed-out pair from the site.
    const attacker = new Browser(kiln.url);
    await attacker.get('/login');
    const planted = attacker.cookies.get('kiln_csrf')!;
    victim.cookies.set('kiln_csrf', planted);
    const forged = await victim.post('/settings', { full_name: 'Pwned', _csrf: planted });
    expect(forged.status).toBe(403);
    const chosen = '0123456789abcdef0123456789abcdef';
    victim.cookies.set('kiln_csrf', chosen);
    expect((await victim.post('/settings', { full_name: 'Pwned', _csrf: chosen })).status).toBe(
      403,
    );
    expect((await kiln.app.services.users.getUser(user.handle)).fullName).toBe('');
    // The page's own token still works, whatever the planted cookie says.
    const token = await formToken(victim);
    victim.cookies.set('kiln_csrf', chosen);
    expect((await victim.post('/settings', { full_name: 'Real', _csrf: token })).status).toBe(303);
    expect((await kiln.app.services.users.getUser(user.handle)).fullName).toBe('Real');
  });

  it('changes the token at sign-in and does not accept the old one after', async () => {
    const { user, password } = await kiln.make.user();
    const browser = new Browser(kiln.url);
    const before = await formToken(browser, '/login');
    expect((await browser.post('/login', { login: user.handle, password })).status).toBe(303);
    const first = await formToken(browser);
    expect(first).not.toBe(before);
    expect((await browser.post('/settings', { full_name: 'x', _csrf: before })).status).toBe(403);
    // A second sign-in (another session) gets yet another token; the first session's is not it.
    const again = await signedIn(user.handle, password);
    const second = await formToken(again);
    expect(second).not.toBe(first);
    expect((await again.post('/settings', { full_name: 'y', _csrf: first })).status).toBe(403);
    expect((await again.post('/settings', { full_name: 'y', _csrf: second })).status).toBe(303);
  });
});
