/**
 * Sign-up, sign-in and sign-out over real HTTP with cookies and CSRF tokens, as a browser
 * without JavaScript does it; and the token settings page showing a new token exactly once.
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

describe('sign-up, sign-in, sign-out', () => {
  it('signs up, is signed in, signs out and back in', async () => {
    const browser = new Browser(kiln.url);
    const form = await browser.get('/signup');
    expect(form.status).toBe(200);
    expect(form.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(browser.cookies.get('kiln_csrf')).toMatch(/^[0-9a-f]{32}$/);

    const created = await browser.post('/signup', {
      username: 'ada',
      email: 'ada@example.test',
      password: 'analytical engine',
    });
    expect(created.status).toBe(303);
    const session = browser.cookies.get('kiln_session');
    expect(session).toBeDefined();
    const setCookie = created.headers.getSetCookie().join('\n');
    expect(setCookie).toMatch(/kiln_session=[^;]+;.*HttpOnly/i);
    expect(setCookie).toMatch(/kiln_session=[^;]+;.*SameSite=Lax/i);
    expect(setCookie).not.toMatch(/kiln_session=[^;]+;.*Secure/i);

    const home = await browser.get('/');
    const page = await home.text();
    expect(page).toContain('Welcome to Kiln, ada!');
    expect(page).toContain('Sign out');

    expect((await browser.post('/logout', {})).status).toBe(303);
    expect(browser.cookies.has('kiln_session')).toBe(false);
    expect(await (await browser.get('/')).text()).toContain('Sign in');
    // The old session secret is dead on the server, not only forgotten by the browser.
    const replay = await fetch(`${kiln.url}/settings/tokens`, {
      headers: { cookie: `kiln_session=${session}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);

    await browser.get('/login');
    const wrong = await browser.post('/login', { login: 'ada', password: 'nope nope nope' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('Incorrect username or password.');
    const right = await browser.post('/login', {
      login: 'ADA@example.test',
      password: 'analytical engine',
      redirect: '/settings/tokens',
    });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/settings/tokens');
  });

  it('refuses a form without the CSRF token or with a wrong one', async () => {
    const browser = new Browser(kiln.url);
    await browser.get('/signup');
    const missing = await browser.post(
      '/signup',
      { username: 'mallory', email: 'm@example.test', password: 'password123' },
      { csrf: false },
    );
    expect(missing.status).toBe(403);
    const wrong = await browser.post(
      '/signup',
      { username: 'mallory', email: 'm@example.test', password: 'password123' },
      { csrf: '0'.repeat(32) },
    );
    expect(wrong.status).toBe(403);
    await expect(kiln.app.services.users.findAccount('mallory')).resolves.toBeUndefined();
  });

  it('re-renders sign-up with a message for a taken or invalid name', async () => {
    const { user } = await kiln.make.user();
    const browser = new Browser(kiln.url);
    await browser.get('/signup');
    const taken = await browser.post('/signup', {
      username: user.handle.toUpperCase(),
      email: 'other@example.test',
      password: 'password123',
    });
    expect(taken.status).toBe(422);
    expect(await taken.text()).toContain('This username is taken');
    const reserved = await browser.post('/signup', {
      username: 'admin',
      email: 'x@example.test',
      password: 'password123',
    });
    expect(reserved.status).toBe(422);
    expect(await reserved.text()).toContain('reserved');
  });

  it('never follows an off-site redirect after sign-in', async () => {
    const { user, password } = await kiln.make.user();
    const browser = new Browser(kiln.url);
    await browser.get('/login');
    const response = await browser.post('/login', {
      login: user.handle,
      password,
      redirect: '//evil.example/',
    });
    expect(response.headers.get('location')).toBe('/');
  });

  it('escapes what people type into pages', async () => {
    const browser = new Browser(kiln.url);
    await browser.get('/signup');
    const response = await browser.post('/signup', {
      username: '<script>alert(1)</script>',
      email: 'x@example.test',
      password: 'password123',
    });
    const page = await response.text();
    expect(page).not.toContain('<script>alert(1)</script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('personal access tokens page', () => {
  it('creates a token shown once, which then works and can be revoked', async () => {
    const { user, password } = await kiln.make.user();
    const browser = new Browser(kiln.url);
    expect((await browser.get('/settings/tokens')).status).toBe(303);
    await browser.get('/login');
    await browser.post('/login', { login: user.handle, password });

    const created = await browser.post('/settings/tokens', { name: 'laptop', scope: 'all' });
    expect(created.status).toBe(201);
    const page = await created.text();
    const token = page.match(/<code id="new-token">([0-9a-f]{40})<\/code>/)?.[1];
    expect(token).toBeDefined();
    const api = await fetch(`${kiln.url}/api/v1/user`, {
      headers: { authorization: `token ${token}` },
    });
    expect(api.status).toBe(200);

    const listing = await (await browser.get('/settings/tokens')).text();
    expect(listing).toContain('laptop');
    expect(listing).not.toContain(token!);

    const [record] = await kiln.app.services.tokens.list(user);
    expect(
      (await browser.post(`/settings/tokens/${record!.id}/delete`, { confirm: 'yes' })).status,
    ).toBe(303);
    const after = await fetch(`${kiln.url}/api/v1/user`, {
      headers: { authorization: `token ${token}` },
    });
    expect(after.status).toBe(401);
  });
});

describe('error pages', () => {
  it('renders 404 in the layout', async () => {
    const response = await fetch(`${kiln.url}/no/such/page`);
    expect(response.status).toBe(404);
    const page = await response.text();
    expect(page).toContain('<main id="main"');
    expect(page).toContain('Page not found');
  });
});
