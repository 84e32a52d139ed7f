/**
 * What bot protection meters, checked against what the server really serves: every GET route is
 * either metered or on the unmetered list with its reason (src/http/protect/unmetered-routes.ts),
 * docs/bot-protection.md lists exactly the metered routes, and a pull request's `.diff` and
 * `.patch` (git over the whole range, like the pull's pages) spend the same budget as its pages.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routesOf } from '../../src/http/plugins/route-catalog.ts';
import { UNMETERED_ROUTES, unmeteredReason } from '../../src/http/protect/unmetered-routes.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, makeRepo } from '../web/fixtures.ts';
import { inOneWindow, SMALL_BUDGETS, statuses } from './support.ts';

const DOCS = new URL('../../docs/bot-protection.md', import.meta.url);

let kiln: TestServer;
beforeAll(async () => {
  kiln = await startTestServer({ ...SMALL_BUDGETS });
  const { user } = await kiln.make.user({ handle: 'differ' });
  const repo = await makeRepo(kiln, user, 'tool');
  const root = await commitTo(kiln, repo, { branch: 'main', files: { 'a.txt': 'one\n' } });
  await commitTo(kiln, repo, {
    branch: 'feature',
    parents: [root],
    files: { 'a.txt': 'two\n' },
    message: 'Change a',
  });
  await kiln.app.services.pulls.create(user, 'differ', 'tool', {
    title: 'Change',
    head: 'feature',
    base: 'main',
  });
});
afterAll(async () => {
  await kiln?.close();
});

/** `/repos/:owner/:name/commits/*` → `/repos/{owner}/{name}/commits/…`, as the docs write it. */
function documented(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '…');
}

function getRoutes() {
  return routesOf(kiln.server).filter((route) => route.method === 'GET');
}

describe('the metered routes', () => {
  it('leave no GET route unclassified', () => {
    const routes = getRoutes();
    expect(routes.length).toBeGreaterThan(40);
    const unclassified = routes
      .filter((route) => !route.metered && unmeteredReason(route.url) === undefined)
      .map((route) => route.url);
    expect(unclassified).toEqual([]);
    const both = routes.filter(
      (route) => route.metered && unmeteredReason(route.url) !== undefined,
    );
    expect(both.map((route) => route.url)).toEqual([]);
  });

  it('list no unmetered route that does not exist', () => {
    const served = new Set(getRoutes().map((route) => route.url));
    const stale = Object.keys(UNMETERED_ROUTES).filter((url) => !served.has(url));
    expect(stale).toEqual([]);
  });

  it('are exactly the ones docs/bot-protection.md lists as metered', () => {
    const metered = new Set(
      getRoutes()
        .filter((r) => r.metered)
        .map((r) => documented(r.url)),
    );
    expect(metered.size).toBeGreaterThanOrEqual(8);
    const text = readFileSync(DOCS, 'utf8');
    const section = text.split('## What is metered')[1]?.split('Never metered')[0] ?? '';
    const listed = new Set(
      [...section.matchAll(/^\|[^|]*\| `([^`]+)` \|$/gm)].map((match) => match[1] ?? ''),
    );
    expect([...listed].sort()).toEqual([...metered].sort());
  });

  it('are documented with every unmetered page and its reason', () => {
    const text = readFileSync(DOCS, 'utf8');
    for (const [url, reason] of Object.entries(UNMETERED_ROUTES)) {
      expect(text, url).toContain(`| \`${documented(url)}\` | ${reason} |`);
    }
  });
});

describe("a pull request's .diff and .patch", () => {
  it('spend the budget of the pull pages', async () => {
    // Warm up the git processes outside the counted window.
    expect(await statuses(kiln.url, '/repos/differ/tool/pulls/1.diff', 1)).toEqual([200]);
    await inOneWindow(async () => {
      expect(await statuses(kiln.url, '/repos/differ/tool/pulls/1.diff', 2)).toEqual([200, 200]);
      expect(await statuses(kiln.url, '/repos/differ/tool/pulls/1.patch', 1)).toEqual([200]);
      expect(await statuses(kiln.url, '/repos/differ/tool/pulls/1.patch', 1)).toEqual([429]);
      expect(await statuses(kiln.url, '/repos/differ/tool/pulls/1.diff', 1)).toEqual([429]);
      expect(await statuses(kiln.url, '/repos/differ/tool/pulls/1', 1)).toEqual([429]);
    });
  });
});
