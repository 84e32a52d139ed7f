/**
 * An organisation's main page carries the tab bar its members, teams and settings pages carry:
 * the same tabs for the same viewer, with the current one marked.
 */
import { describe, expect, it } from 'vitest';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let boss: Person;
useWorld({ people: ['boss'] }, async (world) => {
  kiln = world.kiln;
  boss = world.people.boss;
  await kiln.app.services.orgs.createOrg({ name: 'atelier', owner: boss.user });
});

/** The organisation tab bar of a page: each tab's address, and which one is current. */
function tabs(html: string): { hrefs: string[]; current: string | undefined } {
  const nav = /<nav class="UnderlineNav" aria-label="Organisation">([\s\S]*?)<\/nav>/.exec(html);
  expect(nav, 'the organisation tab bar').not.toBeNull();
  const links = [
    ...(nav?.[1] ?? '').matchAll(
      /<a class="UnderlineNav-item" href="([^"]+)"( aria-current="page")?/g,
    ),
  ];
  return {
    hrefs: links.map((link) => link[1] ?? ''),
    current: links.find((link) => link[2])?.[1],
  };
}

describe("an organisation's main page", () => {
  it('has the tab bar of its members page, with Repositories current', async () => {
    const browser = await signedIn(kiln, boss.user.handle, boss.password);
    const main = tabs(await page(browser, '/atelier'));
    const members = tabs(await page(browser, '/org/atelier/members'));
    expect(main.hrefs).toEqual(members.hrefs);
    expect(main.hrefs).toEqual([
      '/atelier',
      '/org/atelier/members',
      '/org/atelier/teams',
      '/org/atelier/settings',
    ]);
    expect(main.current).toBe('/atelier');
    expect(members.current).toBe('/org/atelier/members');
  });

  it('shows an outsider only the tabs they may open', async () => {
    const visitor = new Browser(kiln.url);
    expect(tabs(await page(visitor, '/atelier')).hrefs).toEqual(['/atelier']);
  });
});
