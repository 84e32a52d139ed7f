/**
 * What a pass is worth: where a solved challenge may send the caller (only server-relative,
 * single-slash paths; every attack of the contracts goes to `/`), and which cookies are no pass
 * at all (SPEC.md → Authentication → Challenge pass, Errors).
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.ts';
import {
  type FakeCaptcha,
  inOneWindow,
  passValue,
  SECRET,
  SMALL_BUDGETS,
  solveChallenge,
  statuses,
  useCaptchaKiln,
} from './support.ts';

let _fake: FakeCaptcha;
let kiln: TestServer;
useCaptchaKiln(SMALL_BUDGETS, (provider, server) => {
  _fake = provider;
  kiln = server;
});

const solve = (redirect = '/search') => solveChallenge(kiln.url, redirect);

describe('the redirect after a solved challenge', () => {
  it.each([
    '',
    '//evil.test',
    '///evil.test',
    '/\\evil.test',
    '\\/evil.test',
    '\\\\evil.test',
    '/\\\\evil.test',
    '/\t/evil.test',
    '/\n/evil.test',
    '/\r/evil.test',
    '/search\r\nSet-Cookie: x=1',
    ' //evil.test',
    '\u0000/evil.test',
    'http://evil.test/',
    'https:/evil.test',
    'http:evil.test',
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'data:text/html,x',
    '/%2F%2Fevil.test',
    '/%5Cevil.test',
    '/.//evil.test',
    '/..//evil.test',
    '／／evil.test',
    '/日本',
    '/\u2028',
    `/${'a'.repeat(2048)}`,
    '/challenge',
    '/challenge?redirect=/search',
  ])('sends a solved challenge with redirect %j to /', async (redirect) => {
    const { response, pass } = await solve(redirect);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
    expect(pass).not.toBe('');
  });
});

describe('passes that are not valid', () => {
  const now = () => Math.floor(Date.now() / 1000);
  it.each([
    [
      'tampered signature',
      () => passValue(SECRET, now() + 3600).replace(/.$/, (c) => (c === '0' ? '1' : '0')),
    ],
    ['tampered expiry', () => `${now() + 7200}.${passValue(SECRET, now() + 3600).split('.')[1]}`],
    ['truncated', () => passValue(SECRET, now() + 3600).slice(0, -2)],
    ['expired', () => passValue(SECRET, now() - 5)],
    ['signed with another secret', () => passValue('another secret', now() + 3600)],
    ['beyond the configured lifetime', () => passValue(SECRET, now() + 10 * 86_400)],
    ['not a pass at all', () => 'hello'],
  ])('count as no pass: %s', async (_name, make) => {
    await inOneWindow(async () => {
      const cookie = { headers: { cookie: `service_human=${make()}` } };
      expect(await statuses(kiln.url, '/search', 4, cookie)).toEqual([200, 200, 200, 303]);
    });
  });

  it('a pass computed independently is accepted', async () => {
    await inOneWindow(async () => {
      const cookie = { headers: { cookie: `service_human=${passValue(SECRET, now() + 600)}` } };
      expect(await statuses(kiln.url, '/search', 5, cookie)).toEqual(Array(5).fill(200));
    });
  });
});
