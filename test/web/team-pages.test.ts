/**
 * Teams from the web, over real HTTP without JavaScript: the Teams tab of an organisation's
 * pages for its members, owners creating a team, adding a member and a repository, changing
 * and deleting it, and what the team then gives its member on the repository's own pages.
 * Plain members see the teams without forms and are refused the changes; outsiders never see
 * a private organisation's teams.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { page, signedIn } from './fixtures.ts';

type Who = 'boss' | 'dev' | 'outsider';
let kiln: TestServer;
let people: Record<Who, Person>;
const browsers = {} as Record<Who, Browser>;

useWorld({ people: ['boss', 'dev', 'outsider'] }, async (world) => {
  kiln = world.kiln;
  people = world.people;
  for (const key of ['boss', 'dev', 'outsider'] as const) {
    browsers[key] = await signedIn(kiln, people[key].user.handle, people[key].password);
  }
});

beforeAll(async () => {
  const { orgs, repos } = kiln.app.services;
  await orgs.createOrg({ name: 'forge', owner: people.boss.user, visibility: 'private' });
  await repos.create(people.boss.user, {
    name: 'anvil',
    orgName: 'forge',
    private: true,
    autoInit: true,
  });
});

async function landing(browser: Browser, response: Response): Promise<string> {
  expect(response.status).toBe(303);
  return page(browser, response.headers.get('location') ?? '/');
}

describe('team pages', () => {
  it('lets an owner make a team, fill it and see what it gives its member', async () => {
    const list = await page(browsers.boss, '/org/forge/teams');
    expect(list).toContain('href="/org/forge/teams"');
    expect(list).toContain('Owners');
    expect(list).toContain('New team');
    const made = await browsers.boss.post('/org/forge/teams', {
      name: 'smiths',
      description: 'they hammer',
      permission: 'write',
    });
    expect(made.headers.get('location')).toBe('/org/forge/teams/smiths');
    expect(await landing(browsers.boss, made)).toContain('Team smiths created.');
    // dev cannot see the private repository yet.
    expect((await browsers.dev.get('/repos/forge/anvil')).status).toBe(404);
    const added = await browsers.boss.post('/org/forge/teams/smiths/members', {
      username: people.dev.user.handle,
    });
    expect(await landing(browsers.boss, added)).toContain(
      `${people.dev.user.handle} is now in smiths.`,
    );
    const repo = await browsers.boss.post('/org/forge/teams/smiths/repos', { repo: 'anvil' });
    const team = await landing(browsers.boss, repo);
    expect(team).toContain('/repos/forge/anvil');
    expect(team).toContain('Write access to chosen repositories');
    // The member now writes there: the page offers a new release, not the settings.
    expect((await browsers.dev.get('/repos/forge/anvil/releases/new')).status).toBe(200);
    expect((await browsers.dev.get('/repos/forge/anvil/settings')).status).toBe(403);
  });

  it('shows a plain member the teams without forms and refuses their changes', async () => {
    const teamPage = await page(browsers.dev, '/org/forge/teams/smiths');
    expect(teamPage).toContain(people.dev.user.handle);
    expect(teamPage).not.toContain('Add member');
    expect(await page(browsers.dev, '/org/forge/members')).toContain('href="/org/forge/teams"');
    const refused = await browsers.dev.post('/org/forge/teams/smiths/delete', {});
    expect(refused.status).toBe(403);
    expect((await browsers.outsider.get('/org/forge/teams')).status).toBe(404);
    expect((await browsers.outsider.get('/org/forge/teams/smiths')).status).toBe(404);
  });

  it('answers bad input with the message and keeps the Owners team', async () => {
    const bad = await browsers.boss.post('/org/forge/teams', { name: 'no way' });
    expect(await landing(browsers.boss, bad)).toContain('team name must be');
    const taken = await browsers.boss.post('/org/forge/teams', { name: 'SMITHS' });
    expect(await landing(browsers.boss, taken)).toContain('team already exists');
    const owners = await page(browsers.boss, '/org/forge/teams/Owners');
    expect(owners).toContain(people.boss.user.handle);
    expect(owners).not.toContain('Delete team');
    const last = await browsers.boss.post('/org/forge/teams/Owners/members/remove', {
      username: people.boss.user.handle,
    });
    expect(await landing(browsers.boss, last)).toContain('at least one owner');
  });

  it('changes and deletes a team', async () => {
    const saved = await browsers.boss.post('/org/forge/teams/smiths/edit', {
      name: 'smiths',
      description: '',
      permission: 'read',
      includes_all_repositories: 'on',
    });
    expect(await landing(browsers.boss, saved)).toContain('Read access to all repositories');
    expect((await browsers.dev.get('/repos/forge/anvil/releases/new')).status).toBe(403);
    const gone = await browsers.boss.post('/org/forge/teams/smiths/delete', {});
    expect(await landing(browsers.boss, gone)).toContain('Team smiths deleted.');
    expect((await browsers.boss.get('/org/forge/teams/smiths')).status).toBe(404);
  });
});

describe('a team address no team could have', () => {
  it('is a missing page or bad input, never an error', async () => {
    for (const name of ['a%2Fb', 'x'.repeat(400), '%E2%9C%93']) {
      const response = await browsers.boss.get(`/org/forge/teams/${name}`);
      await response.arrayBuffer();
      expect([400, 404], name).toContain(response.status);
    }
  });
});
