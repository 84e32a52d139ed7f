/**
 * Metering of expensive pages without a captcha: who is counted, what a refusal looks like, and
 * which requests are never counted (SPEC.md → Errors, Limits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protectionOf } from '../../src/http/protect/metering.plugin.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { freshWindow, get, inOneWindow, SMALL_BUDGETS, statuses, WINDOW_MS } from './support.ts';

let kiln: TestServer;
let sessionCookie: string;
beforeAll(async () => {
  kiln = await startTestServer({ ...SMALL_BUDGETS });
  const { user } = await kiln.make.user({ handle: 'metered' });
  await kiln.app.services.repos.create(user, { name: 'tool', autoInit: true });
  const session = await kiln.app.services.sessions.start(user);
  sessionCookie = `kiln_session=${session.secret}`;
});
afterAll(async () => {
  await kiln?.close();
});

describe('anonymous callers without a captcha', () => {
  it('get 429 with Retry-After and a page once the budget is spent', async () => {
    await inOneWindow(async () => {
      expect(await statuses(kiln.url, '/search?q=tool', 3)).toEqual([200, 200, 200]);
      const before = Date.now();
      const refused = await get(kiln.url, '/search?q=tool');
      const after = Date.now();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('cache-control')).toBe('no-store');
      const windowEnd = (Math.floor(before / WINDOW_MS) + 1) * WINDOW_MS;
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(Math.max(1, Math.ceil((windowEnd - after) / 1000)));
      expect(retryAfter).toBeLessThanOrEqual(Math.max(1, Math.ceil((windowEnd - before) / 1000)));
      expect(refused.headers.get('content-type')).toContain('text/html');
      const page = await refused.text();
      expect(page).toContain('Too many requests');
      expect(page).toContain('<header class="Header');
      expect(refused.headers.get('content-security-policy')).toContain("script-src 'self'");
    });
  });

  it('start again in the next window', async () => {
    await inOneWindow(async () => {
      expect(await statuses(kiln.url, '/search', 4)).toEqual([200, 200, 200, 429]);
      await freshWindow();
      expect(await statuses(kiln.url, '/search', 1)).toEqual([200]);
    });
  });

  it('count HEAD like GET', async () => {
    await inOneWindow(async () => {
      expect(await statuses(kiln.url, '/search', 2, { method: 'HEAD' })).toEqual([200, 200]);
      expect(await statuses(kiln.url, '/search', 1)).toEqual([200]);
      expect(await statuses(kiln.url, '/search', 1, { method: 'HEAD' })).toEqual([429]);
      expect(await statuses(kiln.url, '/search', 1)).toEqual([429]);
    });
  });

  it('cannot pick their counter with X-Forwarded-For when no proxy is trusted', async () => {
    await inOneWindow(async () => {
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await get(kiln.url, '/search', {
          headers: { 'x-forwarded-for': `198.51.100.${i}` },
        });
        codes.push(response.status);
      }
      expect(codes).toEqual([200, 200, 200, 429, 429]);
    });
  });
});

describe('signed-in users', () => {
  it('have the user budget on their account and get 429, never a challenge', async () => {
    await inOneWindow(async () => {
      // The anonymous counter of the same address is spent first: the account's is separate.
      expect(await statuses(kiln.url, '/search', 4)).toEqual([200, 200, 200, 429]);
      const codes = await statuses(kiln.url, '/search?q=t', 6, {
        headers: { cookie: sessionCookie },
      });
      expect(codes).toEqual([200, 200, 200, 200, 200, 429]);
      const refused = await get(kiln.url, '/search', { headers: { cookie: sessionCookie } });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await refused.text()).toContain('You have asked for many expensive pages');
    });
  });
});

describe('the repository pages', () => {
  it('meter history, single commits and pulls against the same budget as search', async () => {
    // Warm up (git processes start on first use) and learn the commit, before counting; in a
    // fresh window, since earlier tests may have spent this address's budget.
    await freshWindow();
    const history = await get(kiln.url, '/repos/metered/tool/commits/main');
    expect(history.status).toBe(200);
    const sha = /href="\/repos\/metered\/tool\/commit\/([0-9a-f]{40})"/.exec(
      await history.text(),
    )?.[1];
    expect(sha).toBeDefined();
    await statuses(kiln.url, `/repos/metered/tool/commit/${sha}`, 1);
    await inOneWindow(async () => {
      expect(await statuses(kiln.url, '/repos/metered/tool/commits/main', 1)).toEqual([200]);
      expect(await statuses(kiln.url, `/repos/metered/tool/commit/${sha}`, 1)).toEqual([200]);
      expect(await statuses(kiln.url, '/search', 1)).toEqual([200]);
      expect(await statuses(kiln.url, `/repos/metered/tool/commit/${sha}`, 1)).toEqual([429]);
      expect(await statuses(kiln.url, '/repos/metered/tool/commits/main', 1)).toEqual([429]);
      expect(await statuses(kiln.url, '/repos/metered/tool/commits', 1)).toEqual([429]);
      expect(
        await statuses(kiln.url, `/repos/metered/tool/commit/${sha}`, 1, { method: 'HEAD' }),
      ).toEqual([429]);
      expect(await statuses(kiln.url, '/repos/metered/tool/pulls', 1)).toEqual([429]);
      // The repository's other pages are not metered.
      expect(await statuses(kiln.url, '/repos/metered/tool', 1)).toEqual([200]);
    });
  });
});

describe('requests that are never metered', () => {
  it('pass however many there are, even with the budget spent', async () => {
    await inOneWindow(async () => {
      expect(await statuses(kiln.url, '/search', 4)).toEqual([200, 200, 200, 429]);
      const paths = [
        '/api/v1/version',
        '/api/v1/repos/metered/tool',
        '/metered/tool.git/info/refs?service=git-upload-pack',
        '/assets/kiln.css',
        '/',
        '/login',
        '/challenge',
        '/healthz',
      ];
      for (const path of paths) {
        const codes = await statuses(kiln.url, path, 5);
        for (const code of codes) expect(code, path).not.toBe(429);
        expect(new Set(codes).size, path).toBe(1);
      }
      for (let i = 0; i < 5; i++) {
        const posted = await fetch(`${kiln.url}/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'q=tool',
          redirect: 'manual',
        });
        expect(posted.status).not.toBe(429);
        expect(posted.status).not.toBe(303);
      }
      // Still refused: nothing above reset or used the counter.
      expect(await statuses(kiln.url, '/search', 1)).toEqual([429]);
    });
  });

  it('git transport serves a clone advertisement', async () => {
    await inOneWindow(async () => {
      await statuses(kiln.url, '/search', 4);
      const advert = await get(kiln.url, '/metered/tool.git/info/refs?service=git-upload-pack');
      expect(advert.status).toBe(200);
      expect(advert.headers.get('content-type')).toBe(
        'application/x-git-upload-pack-advertisement',
      );
    });
  });
});

describe('the counter map', () => {
  it('stays bounded: elapsed windows are pruned past 50,000 keys', async () => {
    const protection = protectionOf(kiln.server);
    expect(protection).toBeDefined();
    const meter = protection!.meter;
    const perWindow = new Map<number, number>();
    const total = 60_000;
    for (let i = 0; i < total; i++) {
      const response = await kiln.server.inject({
        method: 'GET',
        url: '/search',
        remoteAddress: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      });
      expect(response.statusCode).toBe(200);
      // Taken after the answer: the meter saw this hit in this window or an earlier one.
      const window = Math.floor(Date.now() / WINDOW_MS);
      perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
      // A tight inject loop never reaches the check phase; let queued socket callbacks run.
      if (i % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const current = Math.floor(Date.now() / WINDOW_MS);
    // One window's keys: the current one's, or the last one's if an answer straddled the boundary.
    const oneWindow = Math.max(perWindow.get(current) ?? 0, perWindow.get(current - 1) ?? 0);
    expect(perWindow.size).toBeGreaterThan(1);
    expect(meter.size).toBeLessThan(total);
    expect(meter.size).toBeLessThanOrEqual(50_000 + oneWindow + 10);
  }, 120_000);
});

describe('with metering disabled', () => {
  it('refuses nobody', async () => {
    const open = await startTestServer({ ...SMALL_BUDGETS, SERVICE_PROTECT_ENABLED: 'false' });
    try {
      expect(await statuses(open.url, '/search', 8)).toEqual(Array(8).fill(200));
    } finally {
      await open.close();
    }
  });
});
