/**
 * Layout a new user notices at once, measured in a real Chromium: the tab bars of a repository,
 * a pull request and an organisation never scroll up and down (only sideways, on a narrow
 * screen), their current tab's line sits on the bar's bottom edge, and the tokens page's scope
 * boxes each sit centred under their column's heading.
 */
import { describe, expect, it } from 'vitest';
import { commitFiles } from '../../src/git/test-support.ts';
import type { TestServer } from '../support/server.ts';
import type { Chromium } from './chromium.ts';
import { browserEnabled, useBrowserWorld } from './suite.ts';

let kiln: TestServer;
let chrome: Chromium;

useBrowserWorld(async (world) => {
  ({ kiln, chrome } = world);
  const { user } = await kiln.make.user({ handle: 'tabber', password: 'a long enough secret' });
  const { repos, pulls, orgs } = kiln.app.services;
  await orgs.createOrg({ name: 'tab-org', owner: user });
  const { repo } = await repos.create(user, { name: 'tabs', orgName: 'tab-org' });
  const dir = repos.handle(repo).path;
  const main = await commitFiles(dir, { branch: 'main', files: { 'a.txt': 'a\n' } });
  await commitFiles(dir, { branch: 'topic', parents: [main], files: { 'b.txt': 'b\n' } });
  await pulls.create(user, 'tab-org', 'tabs', { title: 'b', head: 'topic', base: 'main' });
});

const PAGES = [
  '/repos/tab-org/tabs',
  '/repos/tab-org/tabs/pulls/1',
  '/repos/tab-org/tabs/settings',
  '/tab-org',
  '/org/tab-org/members',
];

describe.runIf(browserEnabled)('tab bars and the scopes grid', () => {
  it('never scroll up and down, and the current tab sits on the bar', async () => {
    const { page } = chrome;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${kiln.url}/login`);
    await page.getByLabel('Username or email').fill('tabber');
    await page.getByLabel('Password').fill('a long enough secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    const faults: string[] = [];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      for (const path of PAGES) {
        expect((await page.goto(kiln.url + path))?.status(), path).toBe(200);
        const bars = await page.evaluate(() =>
          Array.from(document.querySelectorAll('nav.UnderlineNav')).map((nav) => {
            const current = nav.querySelector('[aria-current="page"]');
            return {
              label: nav.getAttribute('aria-label'),
              scrollHeight: nav.scrollHeight,
              clientHeight: nav.clientHeight,
              barBottom: nav.getBoundingClientRect().bottom,
              currentBottom: current?.getBoundingClientRect().bottom,
            };
          }),
        );
        expect(bars.length, path).toBeGreaterThan(0);
        for (const bar of bars) {
          const where = `${path} at ${width}: ${bar.label}`;
          if (bar.scrollHeight > bar.clientHeight) {
            faults.push(`${where} scrolls up and down (${bar.scrollHeight} > ${bar.clientHeight})`);
          }
          if (bar.currentBottom !== undefined && Math.abs(bar.currentBottom - bar.barBottom) > 1) {
            faults.push(
              `${where}: current tab ends at ${bar.currentBottom}, bar at ${bar.barBottom}`,
            );
          }
        }
      }
    }
    expect(faults).toEqual([]);
  }, 60_000);

  it('puts each scope box under its column heading', async () => {
    const { page } = chrome;
    await page.setViewportSize({ width: 1280, height: 800 });
    expect((await page.goto(`${kiln.url}/settings/tokens`))?.status()).toBe(200);
    const grid = await page.evaluate(() => {
      const centre = (el: Element | null) => {
        const box = el?.getBoundingClientRect();
        return box ? Math.round(box.left + box.width / 2) : -1;
      };
      const cells = Array.from(document.querySelectorAll('.kiln-scope-grid > *'));
      const headings = cells.slice(1, 3).map(centre);
      const boxes = Array.from(document.querySelectorAll('.kiln-scope-grid input')).map(
        (input) => ({
          value: (input as HTMLInputElement).value,
          centre: centre(input),
        }),
      );
      return { headings, boxes };
    });
    const [read = 0, write = 0] = grid.headings;
    expect(grid.boxes.map((box) => box.value)).toEqual(
      ['repository', 'organization', 'user', 'admin'].flatMap((c) => [`read:${c}`, `write:${c}`]),
    );
    for (const box of grid.boxes) {
      const heading = box.value.startsWith('read:') ? read : write;
      expect(Math.abs(box.centre - heading), box.value).toBeLessThanOrEqual(1);
    }
  });
});
