import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../config/config.ts';
import {
  CAPTCHA_PROVIDERS,
  type CaptchaProviderName,
  captchaIsConfigured,
  checkCaptcha,
  MAX_CAPTCHA_RESPONSE_LENGTH,
  verifyCaptcha,
} from './captcha.ts';

interface Received {
  path: string;
  contentType: string | undefined;
  form: URLSearchParams;
}

/** A stand-in for a provider's siteverify endpoint; the path picks the behaviour. */
let server: Server;
let base: string;
let received: Received[] = [];
const hanging = new Set<ServerResponse>();

function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
  received.push({
    path: req.url ?? '',
    contentType: req.headers['content-type'],
    form: new URLSearchParams(body),
  });
  const reply = (status: number, contentType: string, text: string) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(text);
  };
  const json = (status: number, value: unknown) =>
    reply(status, 'application/json', JSON.stringify(value));
  const behaviours: Record<string, () => void> = {
    '/success': () => json(200, { success: true, challenge_ts: '2026-11-22T12:00:00Z' }),
    '/failure': () => json(200, { success: false, 'error-codes': ['invalid-input-response'] }),
    '/truthy': () => json(200, { success: 'true' }),
    '/array': () => json(200, [{ success: true }]),
    '/null': () => json(200, null),
    '/garbage': () => reply(200, 'text/html', '<html>captcha service says hi</html>'),
    '/error-500': () => json(500, { success: true }),
    '/redirect': () => {
      res.writeHead(302, { location: '/success' });
      res.end();
    },
    '/huge': () =>
      reply(200, 'application/json', `{"success":true,"pad":"${'x'.repeat(200_000)}"}`),
    '/hang': () => {
      hanging.add(res);
    },
    '/hang-body': () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"success":');
      hanging.add(res);
    },
  };
  (behaviours[req.url ?? ''] ?? (() => json(404, { success: false })))();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => answer(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
});

function verify(path: string, extra: { provider?: CaptchaProviderName; timeoutMs?: number } = {}) {
  return verifyCaptcha({
    provider: extra.provider ?? 'hcaptcha',
    secret: 's3cret',
    response: 'token-123',
    remoteIp: '198.51.100.7',
    siteKey: 'site-1',
    verifyUrl: new URL(path, base),
    timeoutMs: extra.timeoutMs ?? 2000,
  });
}

describe('verifyCaptcha against a fake provider', () => {
  it('is true on success: true', async () => {
    expect(await verify('/success')).toBe(true);
  });

  it('posts the form the provider expects', async () => {
    await verify('/success');
    const [request] = received;
    expect(request?.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(request!.form)).toEqual({
      secret: 's3cret',
      response: 'token-123',
      remoteip: '198.51.100.7',
      sitekey: 'site-1',
    });
  });

  it('sends no site key to reCAPTCHA or Turnstile', async () => {
    for (const provider of ['recaptcha', 'turnstile'] as const) {
      received = [];
      expect(await verify('/success', { provider })).toBe(true);
      expect(received[0]?.form.has('sitekey')).toBe(false);
    }
  });

  it('omits remoteip when it is not an address', async () => {
    await verifyCaptcha({
      provider: 'turnstile',
      secret: 's',
      response: 't',
      remoteIp: 'unknown',
      verifyUrl: `${base}/success`,
    });
    expect(received[0]?.form.has('remoteip')).toBe(false);
  });

  it('is false on success: false, and reports the error codes', async () => {
    expect(await verify('/failure')).toBe(false);
    expect(
      await checkCaptcha({
        provider: 'hcaptcha',
        secret: 's',
        response: 't',
        verifyUrl: `${base}/failure`,
      }),
    ).toEqual({ success: false, reason: 'rejected', errorCodes: ['invalid-input-response'] });
  });

  it.each([
    ['a string "true"', '/truthy'],
    ['a JSON array', '/array'],
    ['JSON null', '/null'],
    ['an HTML body', '/garbage'],
    ['a 500, even with success: true', '/error-500'],
    ['a redirect', '/redirect'],
    ['an oversized body', '/huge'],
    ['a 404', '/nowhere'],
  ])('is false on %s', async (_name, path) => {
    expect(await verify(path)).toBe(false);
  });

  it('is false when the provider hangs, after the timeout', async () => {
    const started = Date.now();
    const verdict = await checkCaptcha({
      provider: 'turnstile',
      secret: 's',
      response: 't',
      verifyUrl: `${base}/hang`,
      timeoutMs: 200,
    });
    expect(verdict).toEqual({ success: false, reason: 'timeout', errorCodes: [] });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('is false when the body stalls halfway, after the timeout', async () => {
    expect(await verify('/hang-body', { timeoutMs: 200 })).toBe(false);
  });

  it('is false when the provider is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const verdict = await checkCaptcha({
      provider: 'hcaptcha',
      secret: 's',
      response: 't',
      verifyUrl: `http://127.0.0.1:${port}/siteverify`,
    });
    expect(verdict).toMatchObject({ success: false, reason: 'unreachable' });
    expect(
      await verifyCaptcha({ provider: 'hcaptcha', secret: 's', response: 't', verifyUrl: 'nope' }),
    ).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['not a string', ['a', 'b']],
    ['oversized', 'x'.repeat(MAX_CAPTCHA_RESPONSE_LENGTH + 1)],
  ])('does not call out for a %s response token', async (_name, response) => {
    expect(
      await verifyCaptcha({
        provider: 'hcaptcha',
        secret: 's',
        response,
        verifyUrl: `${base}/success`,
      }),
    ).toBe(false);
    expect(received).toEqual([]);
  });
});

describe('verifyCaptcha without a usable configuration', () => {
  it('fails without calling out when the secret is empty or the provider unknown', async () => {
    const common = { response: 't', verifyUrl: 'http://127.0.0.1:9/never' };
    expect(await checkCaptcha({ ...common, provider: 'hcaptcha', secret: '' })).toMatchObject({
      success: false,
      reason: 'not-configured',
    });
    const unknown = 'mcaptcha' as CaptchaProviderName;
    expect(await verifyCaptcha({ ...common, provider: unknown, secret: 's' })).toBe(false);
  });
});

describe('CAPTCHA_PROVIDERS', () => {
  it('describes each widget and its default verify endpoint', () => {
    expect(CAPTCHA_PROVIDERS.hcaptcha).toMatchObject({
      scriptUrl: 'https://js.hcaptcha.com/1/api.js',
      widgetClass: 'h-captcha',
      responseField: 'h-captcha-response',
      verifyUrl: 'https://api.hcaptcha.com/siteverify',
    });
    expect(CAPTCHA_PROVIDERS.recaptcha).toMatchObject({
      scriptUrl: 'https://www.google.com/recaptcha/api.js',
      widgetClass: 'g-recaptcha',
      responseField: 'g-recaptcha-response',
      verifyUrl: 'https://www.google.com/recaptcha/api/siteverify',
    });
    expect(CAPTCHA_PROVIDERS.turnstile).toMatchObject({
      scriptUrl: 'https://challenges.cloudflare.com/turnstile/v0/api.js',
      widgetClass: 'cf-turnstile',
      responseField: 'cf-turnstile-response',
      verifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    });
  });
});

describe('captchaIsConfigured', () => {
  const full = { captchaProvider: 'turnstile', captchaSiteKey: 'site', captchaSecretKey: 'secret' };

  it('is true only when provider, site key and secret key are all set', () => {
    expect(captchaIsConfigured(full)).toBe(true);
    expect(captchaIsConfigured({ ...full, captchaProvider: undefined })).toBe(false);
    expect(captchaIsConfigured({ ...full, captchaProvider: '' })).toBe(false);
    expect(captchaIsConfigured({ ...full, captchaSiteKey: undefined })).toBe(false);
    expect(captchaIsConfigured({ ...full, captchaSiteKey: '  ' })).toBe(false);
    expect(captchaIsConfigured({ ...full, captchaSecretKey: null })).toBe(false);
    expect(captchaIsConfigured({ ...full, captchaSecretKey: '' })).toBe(false);
    expect(captchaIsConfigured({})).toBe(false);
  });

  it('reads the protect section of the configuration as it is', () => {
    const protect: Config['protect'] = {
      enabled: true,
      anonymousBudget: 30,
      userBudget: 120,
      windowMs: 60_000,
      captchaProvider: 'hcaptcha',
      captchaSiteKey: 'site',
      captchaSecretKey: 'secret',
      captchaVerifyUrl: undefined,
      passLifetimeMs: 86_400_000,
      signupCaptcha: true,
      loginCaptchaAfter: 3,
    };
    expect(captchaIsConfigured(protect)).toBe(true);
    expect(captchaIsConfigured({ ...protect, captchaSecretKey: undefined })).toBe(false);
  });

  it('is false for an unknown provider', () => {
    expect(captchaIsConfigured({ ...full, captchaProvider: 'mcaptcha' })).toBe(false);
  });
});
