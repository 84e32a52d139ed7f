/**
 * The captcha challenge against a fake provider on 127.0.0.1: who is sent to it, what the page
 * allows, how a solved widget turns into a `service_human` pass, and how every kind of failure
 * fails closed (SPEC.md → Challenge endpoints, Errors, Authentication → Challenge pass).
 */
import { describe, expect, it } from 'vitest';
import { protectionOf } from '../../src/http/protect/metering.plugin.ts';
import type { TestServer } from '../support/server.ts';
import {
  expectedPassMac,
  type FakeCaptcha,
  freshWindow,
  get,
  inOneWindow,
  postChallenge,
  SECRET,
  SITE_KEY,
  SMALL_BUDGETS,
  solveChallenge,
  statuses,
  useCaptchaKiln,
} from './support.ts';

let fake: FakeCaptcha;
let kiln: TestServer;
useCaptchaKiln(SMALL_BUDGETS, (provider, server) => {
  fake = provider;
  kiln = server;
});

const solve = (redirect = '/search') => solveChallenge(kiln.url, redirect);

describe('over budget with the captcha configured', () => {
  it('sends an anonymous caller to the challenge with the page asked for', async () => {
    await inOneWindow(async () => {
      expect(await statuses(kiln.url, '/search?q=a%20b&x=1', 3)).toEqual([200, 200, 200]);
      const sent = await get(kiln.url, '/search?q=a%20b&x=1');
      expect(sent.status).toBe(303);
      expect(sent.headers.get('location')).toBe(
        `/challenge?redirect=${encodeURIComponent('/search?q=a%20b&x=1')}`,
      );
      expect(sent.headers.get('cache-control')).toBe('no-store');
      expect(sent.headers.get('retry-after')).toBeNull();
      const head = await get(kiln.url, '/search', { method: 'HEAD' });
      expect(head.status).toBe(303);
    });
  });

  it('gives a pass holder the user budget, then 429 and never a second challenge', async () => {
    await inOneWindow(async () => {
      const { pass } = await solve();
      expect(await statuses(kiln.url, '/search', 4)).toEqual([200, 200, 200, 303]);
      const withPass = { headers: { cookie: `service_human=${pass}` } };
      expect(await statuses(kiln.url, '/search', 6, withPass)).toEqual([
        200, 200, 200, 200, 200, 429,
      ]);
      const refused = await get(kiln.url, '/search', withPass);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('cache-control')).toBe('no-store');
    });
  });

  it('gives a signed-in user 429, never a challenge, pass or not', async () => {
    const { user } = await kiln.make.user();
    const session = await kiln.app.services.sessions.start(user);
    await inOneWindow(async () => {
      const { pass } = await solve();
      const cookie = {
        headers: { cookie: `kiln_session=${session.secret}; service_human=${pass}` },
      };
      expect(await statuses(kiln.url, '/search', 6, cookie)).toEqual([
        200, 200, 200, 200, 200, 429,
      ]);
      // The pass's own counter was not touched by the signed-in requests.
      const passOnly = { headers: { cookie: `service_human=${pass}` } };
      expect(await statuses(kiln.url, '/search', 5, passOnly)).toEqual(Array(5).fill(200));
    });
  });
});

describe('GET /challenge', () => {
  it('shows the widget in the site layout, with a policy that lets it load', async () => {
    const page = await get(kiln.url, '/challenge?redirect=%2Fsearch%3Fq%3Dx');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/script-src 'self' https:\/\/hcaptcha\.com https:\/\/\*\.hcaptcha\.com/);
    expect(policy).toMatch(/frame-src https:\/\/hcaptcha\.com https:\/\/\*\.hcaptcha\.com/);
    expect(policy).not.toContain('unsafe');
    const body = await page.text();
    expect(body).toContain('<header class="Header');
    expect(body).toContain(`<div class="h-captcha mb-3" data-sitekey="${SITE_KEY}">`);
    expect(body).toContain('<script src="https://js.hcaptcha.com/1/api.js" async defer>');
    expect(body).toContain('<input type="hidden" name="redirect" value="/search?q=x">');
    expect(body).not.toContain(SECRET);
  });

  it('drops an unsafe redirect from the form', async () => {
    const page = await get(kiln.url, `/challenge?redirect=${encodeURIComponent('//evil.test')}`);
    expect(await page.text()).toContain('<input type="hidden" name="redirect" value="/">');
  });

  it('keeps the strict policy on other pages', async () => {
    const page = await get(kiln.url, '/');
    expect(page.headers.get('content-security-policy')).not.toContain('hcaptcha');
  });
});

describe('POST /challenge', () => {
  it('hands out a signed pass and returns to the page asked for', async () => {
    const calls = fake.calls.length;
    const before = Math.floor(Date.now() / 1000);
    const { response, pass } = await solve('/search?q=x&y=%20z');
    const after = Math.floor(Date.now() / 1000);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/search?q=x&y=%20z');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const line = response.headers.getSetCookie().find((c) => c.startsWith('service_human='));
    expect(line).toMatch(/; Max-Age=86400(;|$)/);
    expect(line).toMatch(/; Path=\/(;|$)/);
    expect(line).toMatch(/; HttpOnly(;|$)/);
    expect(line).toMatch(/; SameSite=Lax(;|$)/);
    expect(line).not.toMatch(/Secure/i);
    // HMAC-SHA256 keyed with SHA-256(secret), over the expiry digits, in lowercase hex.
    const [expiry = '', mac] = pass.split('.');
    expect(Number(expiry)).toBeGreaterThanOrEqual(before + 86_400);
    expect(Number(expiry)).toBeLessThanOrEqual(after + 86_400);
    expect(mac).toBe(expectedPassMac(SECRET, expiry));
    // The provider was asked once, with the secret, the token, the caller's address and site key.
    expect(fake.calls.length).toBe(calls + 1);
    const form = fake.calls.at(-1);
    expect(form?.get('secret')).toBe(SECRET);
    expect(form?.get('response')).toBe('ok');
    expect(form?.get('remoteip')).toBe('127.0.0.1');
    expect(form?.get('sitekey')).toBe(SITE_KEY);
  });

  it('needs no CSRF token and ignores the session', async () => {
    const response = await postChallenge(
      kiln.url,
      { redirect: '/search', 'h-captcha-response': 'ok', _csrf: 'forged' },
      { cookie: 'kiln_session=nonsense; kiln_csrf=00000000000000000000000000000000' },
    );
    expect(response.status).toBe(303);
    expect(response.headers.getSetCookie().join('\n')).not.toContain('kiln_session');
  });

  it.each([
    ['refused by the provider', 'no'],
    ['answered with HTML', 'garbage'],
    ['answered with a 500', 'status'],
  ])('fails closed with 403 when %s', async (_name, token) => {
    const response = await postChallenge(kiln.url, {
      redirect: '/search',
      'h-captcha-response': token,
    });
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie().join('\n')).not.toContain('service_human');
    const page = await response.text();
    expect(page).toContain('role="alert"');
    expect(page).toContain('class="h-captcha');
    expect(page).toContain('<input type="hidden" name="redirect" value="/search">');
    expect(response.headers.get('content-security-policy')).toContain('hcaptcha.com');
  });

  it('fails closed with 403 when the provider hangs past the deadline', async () => {
    const protection = protectionOf(kiln.server);
    expect(protection).toBeDefined();
    const saved = protection!.captchaTimeoutMs;
    protection!.captchaTimeoutMs = 300;
    try {
      const started = Date.now();
      const response = await postChallenge(kiln.url, { 'h-captcha-response': 'hang' });
      expect(response.status).toBe(403);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(await response.text()).toContain('could not be verified right now');
    } finally {
      protection!.captchaTimeoutMs = saved;
    }
  });

  it('fails with 403 without asking the provider when the answer is missing', async () => {
    const calls = fake.calls.length;
    const response = await postChallenge(kiln.url, { redirect: '/search' });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Please solve the check');
    const oversized = await postChallenge(kiln.url, { 'h-captcha-response': 'x'.repeat(5000) });
    expect(oversized.status).toBe(403);
    expect(fake.calls.length).toBe(calls);
  });

  it('stops asking the provider after ten failures from one address in a window', async () => {
    await inOneWindow(async () => {
      for (let i = 0; i < 10; i++) {
        expect((await postChallenge(kiln.url, { 'h-captcha-response': 'no' })).status).toBe(403);
      }
      const calls = fake.calls.length;
      const blocked = await postChallenge(kiln.url, { 'h-captcha-response': 'ok' });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(fake.calls.length).toBe(calls);
      await freshWindow();
      expect((await solve()).response.status).toBe(303);
    });
  });
});
