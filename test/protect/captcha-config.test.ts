/**
 * What the captcha configuration changes: an incomplete one removes the challenge but never the
 * metering, and each provider gets its own widget, policy and answer field.
 */
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.ts';
import {
  type FakeCaptcha,
  get,
  inOneWindow,
  postChallenge,
  SMALL_BUDGETS,
  statuses,
  useFakeCaptcha,
} from './support.ts';

let fake: FakeCaptcha;
useFakeCaptcha((provider) => {
  fake = provider;
});

describe('an incomplete captcha configuration', () => {
  it.each([
    ['no secret key', { SERVICE_PROTECT_CAPTCHA_SITE_KEY: 'site' }],
    ['no site key', { SERVICE_PROTECT_CAPTCHA_SECRET_KEY: 'secret' }],
    [
      'a blank secret key',
      { SERVICE_PROTECT_CAPTCHA_SITE_KEY: 'site', SERVICE_PROTECT_CAPTCHA_SECRET_KEY: ' ' },
    ],
  ])('with %s still meters, answers 429 and has no challenge', async (_name, env) => {
    const kiln = await startTestServer({
      ...SMALL_BUDGETS,
      SERVICE_PROTECT_CAPTCHA_PROVIDER: 'turnstile',
      SERVICE_PROTECT_CAPTCHA_VERIFY_URL: fake.url,
      ...env,
    });
    try {
      await inOneWindow(async () => {
        expect(await statuses(kiln.url, '/search', 4)).toEqual([200, 200, 200, 429]);
        const page = await get(kiln.url, '/challenge?redirect=/search');
        expect(page.status).toBe(404);
        const text = await page.text();
        expect(text).toContain('This server has no human check');
        expect(text).not.toContain('cf-turnstile');
        const calls = fake.calls.length;
        const posted = await postChallenge(kiln.url, { 'cf-turnstile-response': 'ok' });
        expect(posted.status).toBe(404);
        expect(posted.headers.getSetCookie().join('\n')).not.toContain('service_human');
        expect(fake.calls.length).toBe(calls);
      });
    } finally {
      await kiln.close();
    }
  });
});

describe('each provider', () => {
  it.each([
    {
      provider: 'turnstile',
      field: 'cf-turnstile-response',
      widget: 'cf-turnstile',
      script: 'https://challenges.cloudflare.com/turnstile/v0/api.js',
      origins: ['https://challenges.cloudflare.com'],
    },
    {
      provider: 'recaptcha',
      field: 'g-recaptcha-response',
      widget: 'g-recaptcha',
      script: 'https://www.google.com/recaptcha/api.js',
      origins: ['https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/'],
    },
  ])('$provider: widget, policy and answer field', async (expected) => {
    const kiln = await startTestServer({
      ...SMALL_BUDGETS,
      SERVICE_PROTECT_CAPTCHA_PROVIDER: expected.provider,
      SERVICE_PROTECT_CAPTCHA_SITE_KEY: 'site-key',
      SERVICE_PROTECT_CAPTCHA_SECRET_KEY: 'secret-key',
      SERVICE_PROTECT_CAPTCHA_VERIFY_URL: fake.url,
    });
    try {
      const page = await get(kiln.url, '/challenge');
      expect(page.status).toBe(200);
      const body = await page.text();
      expect(body).toContain(`class="${expected.widget} mb-3" data-sitekey="site-key"`);
      expect(body).toContain(`<script src="${expected.script}" async defer>`);
      const policy = page.headers.get('content-security-policy') ?? '';
      for (const origin of expected.origins) {
        expect(policy).toMatch(new RegExp(`script-src [^;]*${origin.replace(/[.*/]/g, '\\$&')}`));
        expect(policy).toMatch(new RegExp(`frame-src [^;]*${origin.replace(/[.*/]/g, '\\$&')}`));
      }
      // The other providers' fields are not read.
      const wrongField = await postChallenge(kiln.url, { 'h-captcha-response': 'ok' });
      expect(wrongField.status).toBe(403);
      const solved = await postChallenge(kiln.url, { [expected.field]: 'ok', redirect: '/search' });
      expect(solved.status).toBe(303);
      expect(solved.headers.get('location')).toBe('/search');
      expect(fake.calls.at(-1)?.get('secret')).toBe('secret-key');
      expect(fake.calls.at(-1)?.has('sitekey')).toBe(false);
    } finally {
      await kiln.close();
    }
  });
});

describe('the pass cookie over https', () => {
  it('is marked Secure when the base URL is https', async () => {
    const kiln = await startTestServer({
      SERVICE_BASE_URL: 'https://forge.example.test',
      SERVICE_PROTECT_CAPTCHA_PROVIDER: 'hcaptcha',
      SERVICE_PROTECT_CAPTCHA_SITE_KEY: 'site-key',
      SERVICE_PROTECT_CAPTCHA_SECRET_KEY: 'secret-key',
      SERVICE_PROTECT_CAPTCHA_VERIFY_URL: fake.url,
      SERVICE_PROTECT_PASS_LIFETIME: '30m',
    });
    try {
      const solved = await postChallenge(kiln.url, { 'h-captcha-response': 'ok' });
      expect(solved.status).toBe(303);
      const line = solved.headers.getSetCookie().find((c) => c.startsWith('service_human='));
      expect(line).toMatch(/; Max-Age=1800(;|$)/);
      expect(line).toMatch(/; Secure(;|$)/);
    } finally {
      await kiln.close();
    }
  });
});
