/**
 * Behind a trusted reverse proxy the client is read from X-Forwarded-For, right to left; the
 * left part a client writes itself never picks the counter (SPEC.md → Limits, rule 2).
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.ts';
import {
  type FakeCaptcha,
  inOneWindow,
  postChallenge,
  SMALL_BUDGETS,
  statuses,
  useCaptchaKiln,
} from './support.ts';

let fake: FakeCaptcha;
let kiln: TestServer;
useCaptchaKiln({ ...SMALL_BUDGETS, SERVICE_TRUST_PROXY: '127.0.0.1' }, (provider, server) => {
  fake = provider;
  kiln = server;
});

const from = (forwardedFor: string) => ({ headers: { 'x-forwarded-for': forwardedFor } });

describe('with SERVICE_TRUST_PROXY=127.0.0.1', () => {
  it('counts each forwarded client on its own', async () => {
    await inOneWindow(async () => {
      expect(await statuses(kiln.url, '/search', 4, from('203.0.113.1'))).toEqual([
        200, 200, 200, 303,
      ]);
      expect(await statuses(kiln.url, '/search', 3, from('203.0.113.2'))).toEqual([200, 200, 200]);
      // The proxy's own address is a counter of its own, untouched.
      expect(await statuses(kiln.url, '/search', 3)).toEqual([200, 200, 200]);
    });
  });

  it('ignores what the client wrote left of the proxy', async () => {
    await inOneWindow(async () => {
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) {
        codes.push(...(await statuses(kiln.url, '/search', 1, from(`10.9.9.${i}, 203.0.113.7`))));
      }
      expect(codes).toEqual([200, 200, 200, 303]);
    });
  });

  it('folds IPv4-mapped IPv6 into IPv4', async () => {
    await inOneWindow(async () => {
      expect(await statuses(kiln.url, '/search', 2, from('203.0.113.9'))).toEqual([200, 200]);
      expect(await statuses(kiln.url, '/search', 2, from('::ffff:203.0.113.9'))).toEqual([
        200, 303,
      ]);
    });
  });

  it('counts IPv6 clients per /64', async () => {
    await inOneWindow(async () => {
      expect(await statuses(kiln.url, '/search', 2, from('2001:db8:1:2::1'))).toEqual([200, 200]);
      expect(await statuses(kiln.url, '/search', 2, from('2001:db8:1:2:ffff::9'))).toEqual([
        200, 303,
      ]);
      expect(await statuses(kiln.url, '/search', 1, from('2001:db8:1:3::1'))).toEqual([200]);
    });
  });

  it('sends the forwarded client address to the captcha provider', async () => {
    const response = await postChallenge(
      kiln.url,
      { 'h-captcha-response': 'ok' },
      { 'x-forwarded-for': '198.51.100.23' },
    );
    expect(response.status).toBe(303);
    expect(fake.calls.at(-1)?.get('remoteip')).toBe('198.51.100.23');
  });
});
