/**
 * The human check on the account forms, against a fake provider on 127.0.0.1: sign-up asks for
 * it when a captcha is configured (unless switched off), sign-in asks for it after repeated
 * failures, and sign-up can be closed altogether. Also: a taken email address is not confirmed.
 */
import { describe, expect, it } from 'vitest';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { captchaEnv, type FakeCaptcha, useCaptchaKiln } from './support.ts';

let fake: FakeCaptcha;
let kiln: TestServer;
useCaptchaKiln({ SERVICE_TRUST_PROXY: '127.0.0.1' }, (provider, server) => {
  fake = provider;
  kiln = server;
});

let addresses = 0;
function client(server = kiln): Browser {
  addresses += 1;
  return new Browser(server.url, { 'x-forwarded-for': `192.0.2.${addresses}` });
}

describe('sign-up with a captcha configured', () => {
  it('shows the widget and refuses a form without a solved check', async () => {
    const browser = client();
    const form = await (await browser.get('/signup')).text();
    expect(form).toContain('class="h-captcha');
    const account = { username: 'robot1', email: 'robot1@example.test', password: 'password123' };
    const refused = await browser.post('/signup', { ...account, 'h-captcha-response': 'no' });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('The check was not solved');
    await expect(kiln.app.services.users.findAccount('robot1')).resolves.toBeUndefined();
    const created = await browser.post('/signup', { ...account, 'h-captcha-response': 'ok' });
    expect(created.status).toBe(303);
  });

  it('does not confirm that an email address has an account', async () => {
    const { user } = await kiln.make.user();
    const browser = client();
    await browser.get('/signup');
    const taken = await browser.post('/signup', {
      username: 'fresh-name',
      email: user.email,
      password: 'password123',
      'h-captcha-response': 'ok',
    });
    // Created like any other sign-up, without the address (which stays its holder's).
    expect(taken.status).toBe(303);
    expect(await taken.text()).not.toMatch(/email[^<]*(taken|in use|registered|exists)/i);
    const made = await kiln.app.services.users.findAccount('fresh-name');
    expect(made?.email).not.toBe(user.email);
  });
});

describe('sign-in with a captcha configured', () => {
  it('asks for the check after three failures and then requires it', async () => {
    const { user, password } = await kiln.make.user();
    const browser = client();
    expect(await (await browser.get('/login')).text()).not.toContain('h-captcha');
    for (let i = 0; i < 3; i++) await browser.post('/login', { login: user.handle, password: 'x' });
    const form = await browser.get('/login');
    expect(form.headers.get('content-security-policy')).toContain('hcaptcha.com');
    expect(await form.text()).toContain('class="h-captcha');
    const unsolved = await browser.post('/login', { login: user.handle, password });
    expect(unsolved.status).toBe(403);
    expect(browser.cookies.has('kiln_session')).toBe(false);
    const solved = await browser.post('/login', {
      login: user.handle,
      password,
      'h-captcha-response': 'ok',
    });
    expect(solved.status).toBe(303);
  });
});

describe('switches', () => {
  it('skips the sign-up check when SERVICE_PROTECT_SIGNUP_CAPTCHA is off', async () => {
    const open = await startTestServer({
      ...captchaEnv(fake.url),
      SERVICE_PROTECT_SIGNUP_CAPTCHA: 'false',
    });
    try {
      const browser = new Browser(open.url);
      expect(await (await browser.get('/signup')).text()).not.toContain('h-captcha');
      const created = await browser.post('/signup', {
        username: 'human',
        email: 'human@example.test',
        password: 'password123',
      });
      expect(created.status).toBe(303);
    } finally {
      await open.close();
    }
  });

  it('closes sign-up with SERVICE_SIGNUP_ENABLED=false', async () => {
    const closed = await startTestServer({ SERVICE_SIGNUP_ENABLED: 'false' });
    try {
      const browser = new Browser(closed.url);
      const page = await browser.get('/signup');
      expect(await page.text()).toContain('Sign-up is closed');
      const posted = await browser.post('/signup', {
        username: 'late',
        email: 'late@example.test',
        password: 'password123',
      });
      expect(posted.status).toBe(403);
      await expect(closed.app.services.users.findAccount('late')).resolves.toBeUndefined();
    } finally {
      await closed.close();
    }
  });
});
