import { createHash, createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { TestServer } from '../support/server.ts';
import { useForSuite, useWorld } from '../support/world.ts';

/** Small budgets so a handful of requests reaches each limit. */
export const SMALL_BUDGETS = {
  SERVICE_PROTECT_ANONYMOUS_BUDGET: '3',
  SERVICE_PROTECT_USER_BUDGET: '5',
  SERVICE_PROTECT_WINDOW: '2s',
} as const;
export const WINDOW_MS = 2000;

export const SITE_KEY = '10000000-ffff-ffff-ffff-000000000001';
export const SECRET = 'shared captcha secret for the tests';

/** Environment for a complete hCaptcha configuration that verifies against `verifyUrl`. */
export function captchaEnv(verifyUrl: string, secret = SECRET): Record<string, string> {
  return {
    SERVICE_PROTECT_CAPTCHA_PROVIDER: 'hcaptcha',
    SERVICE_PROTECT_CAPTCHA_SITE_KEY: SITE_KEY,
    SERVICE_PROTECT_CAPTCHA_SECRET_KEY: secret,
    SERVICE_PROTECT_CAPTCHA_VERIFY_URL: verifyUrl,
  };
}

/**
 * Waits until a fresh metering window has just begun, so a test's requests all fall in one
 * window (windows are aligned to the clock).
 */
export async function freshWindow(windowMs = WINDOW_MS): Promise<void> {
  const into = Date.now() % windowMs;
  await new Promise((resolve) => setTimeout(resolve, windowMs - into + 10));
}

/**
 * Runs `check` from the start of a fresh window. A slow machine may let a window end halfway,
 * which resets the counters under the check; only then is it run again (up to three times).
 */
export async function inOneWindow(check: () => Promise<void>, windowMs = WINDOW_MS): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await freshWindow(windowMs);
    const window = Math.floor(Date.now() / windowMs);
    try {
      await check();
      return;
    } catch (error) {
      if (attempt >= 3 || Math.floor(Date.now() / windowMs) === window) throw error;
    }
  }
}

/** The pass value computed independently of the server: hex HMAC-SHA256 of the expiry digits. */
export function expectedPassMac(secret: string, expiry: string): string {
  const key = createHash('sha256').update(secret, 'utf8').digest();
  return createHmac('sha256', key).update(expiry, 'utf8').digest('hex');
}

export function passValue(secret: string, expirySeconds: number): string {
  const expiry = String(expirySeconds);
  return `${expiry}.${expectedPassMac(secret, expiry)}`;
}

export type FakeCaptcha = {
  readonly url: string;
  /** Every form posted to the verify endpoint, in order. */
  readonly calls: URLSearchParams[];
  close(): Promise<void>;
};

/**
 * A captcha provider on 127.0.0.1 whose answer depends on the posted token: `ok` solves,
 * `no` is refused with error codes, `garbage` answers HTML, `status` answers 500, `hang` never
 * answers.
 */
export async function startFakeCaptcha(): Promise<FakeCaptcha> {
  const calls: URLSearchParams[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const form = new URLSearchParams(body);
      calls.push(form);
      const token = form.get('response');
      const reply = (status: number, type: string, text: string) =>
        response.writeHead(status, { 'content-type': type }).end(text);
      if (token === 'ok') reply(200, 'application/json', '{"success":true}');
      else if (token === 'no') {
        reply(
          200,
          'application/json',
          '{"success":false,"error-codes":["invalid-input-response"]}',
        );
      } else if (token === 'garbage') reply(200, 'text/html', '<html>oops</html>');
      else if (token === 'status') reply(500, 'application/json', '{"success":true}');
      else if (token === 'hang') return;
      else reply(200, 'application/json', '{"success":false}');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('fake did not bind');
  return {
    url: `http://127.0.0.1:${address.port}/siteverify`,
    calls,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A GET (or HEAD) that does not follow redirects. */
export function get(
  base: string,
  path: string,
  options: { headers?: Record<string, string>; method?: 'GET' | 'HEAD' } = {},
): Promise<Response> {
  return fetch(base + path, {
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    redirect: 'manual',
  });
}

/** Posts the challenge form the way a browser would, without any cookie or CSRF token. */
export function postChallenge(
  base: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}/challenge`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
    redirect: 'manual',
  });
}

/** Solves the challenge (the fake's `ok` token) and returns the answer and the pass it set. */
export async function solveChallenge(
  base: string,
  redirect = '/search',
): Promise<{ response: Response; pass: string }> {
  const response = await postChallenge(base, { redirect, 'h-captcha-response': 'ok' });
  const line = response.headers.getSetCookie().find((c) => c.startsWith('service_human='));
  const pass = line?.split(';')[0]?.slice('service_human='.length) ?? '';
  return { response, pass };
}

/** The statuses of `count` sequential GETs of `path`. */
export async function statuses(
  base: string,
  path: string,
  count: number,
  options: { headers?: Record<string, string>; method?: 'GET' | 'HEAD' } = {},
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await get(base, path, options);
    await response.arrayBuffer();
    out.push(response.status);
  }
  return out;
}

/** A fake captcha provider for the whole suite, handed to `ready` once it listens. */
export function useFakeCaptcha(ready: (fake: FakeCaptcha) => void): void {
  useForSuite(startFakeCaptcha, (fake) => fake.close(), ready);
}

/**
 * The suite's fake captcha provider and a server whose captcha verifies against it, with `env`
 * on top; the server stops before the provider.
 */
export function useCaptchaKiln(
  env: Record<string, string>,
  ready: (fake: FakeCaptcha, kiln: TestServer) => void,
): void {
  let provider: FakeCaptcha;
  useFakeCaptcha((fake) => {
    provider = fake;
  });
  useWorld({ env: () => ({ ...captchaEnv(provider.url), ...env }) }, (world) =>
    ready(provider, world.kiln),
  );
}
