/**
 * Organisations from the web, over real HTTP without JavaScript: creating one from the account
 * menu's form (the creator becomes its owner), its page with its members, the members page for
 * members only, a private organisation as missing to outsiders as an unknown name, owners adding
 * people, changing roles and removing them (never the last owner), and settings with deletion
 * behind the typed name. Each form carries the CSRF token and its effect is read back.
 */
import { describe, expect, it } from 'vitest';
import { Browser as Anonymous, type Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { makeRepo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let people: Record<'founder' | 'helper' | 'outsider', Person>;
const browsers = {} as Record<'founder' | 'helper' | 'outsider', Browser>;

useWorld({ people: ['founder', 'helper', 'outsider'] }, async (world) => {
  kiln = world.kiln;
  people = world.people;
  for (const key of ['founder', 'helper', 'outsider'] as const) {
    browsers[key] = await signedIn(kiln, people[key].user.handle, people[key].password);
  }
});

/** Follows a form's redirect and returns the page it lands on (with its flash message). */
async function landing(browser: Browser, response: Response): Promise<string> {
  expect(response.status).toBe(303);
  return page(browser, response.headers.get('location') ?? '/');
}

async function roleOf(org: string, handle: string) {
  const account = await kiln.app.services.orgs.getOrg(org);
  const person = await kiln.app.services.users.getUser(handle);
  return kiln.app.services.orgs.roleOf(account.id, person.id);
}

describe('creating an organisation', () => {
  it('is offered in the account menu and makes the creator its owner', async () => {
    expect(await page(browsers.founder, '/')).toContain('href="/org/create"');
    expect(await page(browsers.founder, '/org/create')).toContain('name="visibility"');
    const done = await browsers.founder.post('/org/create', {
      name: 'guild',
      visibility: 'public',
    });
    const home = await landing(browsers.founder, done);
    expect(done.headers.get('location')).toBe('/guild');
    expect(home).toContain('guild was created.');
    expect(await roleOf('guild', people.founder.user.handle)).toBe('owner');
    // The owner may now create repositories in it.
    expect(await page(browsers.founder, '/new')).toContain('<option value="guild"');
  });

  it('refuses a taken or invalid name with the form again', async () => {
    const taken = await browsers.helper.post('/org/create', { name: 'GUILD' });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain('already taken');
    const bad = await browsers.helper.post('/org/create', { name: 'no way' });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('may contain only');
  });

  it('sends visitors to sign in and refuses a post without the CSRF token', async () => {
    const anonymous = new Anonymous(kiln.url);
    expect((await anonymous.get('/org/create')).status).toBe(303);
    const forged = await browsers.helper.post('/org/create', { name: 'forged' }, { csrf: false });
    expect(forged.status).toBe(403);
    await expect(kiln.app.services.users.findAccount('forged')).resolves.toBeUndefined();
  });
});

describe('members', () => {
  it('are listed to members only, and owners add, promote, demote and remove them', async () => {
    const helper = people.helper.user.handle;
    // Before joining, the helper sees who belongs on the page, but not the members page.
    expect(await page(browsers.helper, '/guild')).not.toContain('/org/guild/members');
    expect((await browsers.helper.get('/org/guild/members')).status).toBe(404);

    const added = await browsers.founder.post('/org/guild/members', {
      username: helper,
      role: 'member',
    });
    expect(await landing(browsers.founder, added)).toContain(`${helper} is now a member of guild.`);
    expect(await roleOf('guild', helper)).toBe('member');
    expect(await page(browsers.helper, '/guild')).toContain('href="/org/guild/members"');
    const list = await page(browsers.helper, '/org/guild/members');
    expect(list).toContain(helper);
    expect(list).not.toContain('Add a member');

    // A plain member may not change membership.
    const refused = await browsers.helper.post('/org/guild/members/remove', {
      username: people.founder.user.handle,
    });
    expect(refused.status).toBe(403);
    expect(await roleOf('guild', people.founder.user.handle)).toBe('owner');

    await landing(
      browsers.founder,
      await browsers.founder.post('/org/guild/members/role', { username: helper, role: 'owner' }),
    );
    expect(await roleOf('guild', helper)).toBe('owner');
    await landing(
      browsers.founder,
      await browsers.founder.post('/org/guild/members/role', { username: helper, role: 'member' }),
    );
    expect(await roleOf('guild', helper)).toBe('member');
    const removed = await browsers.founder.post('/org/guild/members/remove', { username: helper });
    expect(await landing(browsers.founder, removed)).toContain(`${helper} was removed from guild.`);
    expect(await roleOf('guild', helper)).toBeUndefined();
  });

  it('keeps the last owner, whether removed or demoted', async () => {
    const founder = people.founder.user.handle;
    for (const [path, body] of [
      ['/org/guild/members/remove', { username: founder }],
      ['/org/guild/members/role', { username: founder, role: 'member' }],
    ] as const) {
      const response = await browsers.founder.post(path, body);
      expect(await landing(browsers.founder, response)).toContain('at least one owner');
      expect(await roleOf('guild', founder)).toBe('owner');
    }
  });

  it('answers an unknown person or someone already in with a message', async () => {
    const unknown = await browsers.founder.post('/org/guild/members', {
      username: 'nobody-here',
      role: 'member',
    });
    expect(await landing(browsers.founder, unknown)).toContain('user does not exist');
    const twice = await browsers.founder.post('/org/guild/members', {
      username: people.founder.user.handle,
      role: 'member',
    });
    expect(await landing(browsers.founder, twice)).toContain('already a member');
    expect(await roleOf('guild', people.founder.user.handle)).toBe('owner');
  });
});

describe('settings', () => {
  it('are for owners: description, website and visibility', async () => {
    expect((await browsers.outsider.get('/org/guild/settings')).status).toBe(403);
    const saved = await browsers.founder.post('/org/guild/settings', {
      full_name: 'The Guild',
      description: 'Makers of things',
      website: 'https://guild.example',
      visibility: 'public',
    });
    expect(await landing(browsers.founder, saved)).toContain('Settings saved.');
    const home = await page(new Anonymous(kiln.url), '/guild');
    expect(home).toContain('Makers of things');
    expect(home).toContain('href="https://guild.example"');
  });

  it('refuses a website that is not an http address', async () => {
    const response = await browsers.founder.post('/org/guild/settings', {
      description: '',
      website: 'javascript:alert(1)',
      visibility: 'public',
    });
    expect(await landing(browsers.founder, response)).toContain('http:// or https://');
    expect(await page(browsers.founder, '/guild')).toContain('href="https://guild.example"');
  });

  it('makes a private organisation missing to outsiders, as an unknown one is', async () => {
    const saved = await browsers.founder.post('/org/guild/settings', {
      description: 'Makers of things',
      website: '',
      visibility: 'private',
    });
    await landing(browsers.founder, saved);
    const anonymous = new Anonymous(kiln.url);
    for (const path of ['/guild', '/org/guild/members', '/org/guild/settings']) {
      const unknown = path.replace('guild', 'no-such-org');
      expect((await anonymous.get(path)).status, path).toBe((await anonymous.get(unknown)).status);
      expect((await browsers.outsider.get(path)).status, path).toBe(404);
    }
    expect(await page(browsers.founder, '/guild')).toContain('Private');
  });

  it('deletes only with the typed name, and not while it owns repositories', async () => {
    const wrong = await browsers.founder.post('/org/guild/settings/delete', { confirm: 'guil' });
    expect(await landing(browsers.founder, wrong)).toContain('Type guild to confirm');
    await makeRepo(kiln, people.founder.user, 'tool', { orgName: 'guild' });
    const owning = await browsers.founder.post('/org/guild/settings/delete', { confirm: 'guild' });
    expect(await landing(browsers.founder, owning)).toContain('still owns repositories');
    const { repo } = await kiln.app.services.repos.get(people.founder.user, 'guild', 'tool');
    await kiln.app.services.repos.delete(people.founder.user, 'guild', repo.name);

    const deleted = await browsers.founder.post('/org/guild/settings/delete', { confirm: 'guild' });
    expect(deleted.headers.get('location')).toBe('/');
    expect(await landing(browsers.founder, deleted)).toContain('guild was deleted.');
    expect((await browsers.founder.get('/guild')).status).toBe(404);
    await expect(kiln.app.services.users.findAccount('guild')).resolves.toBeUndefined();
  });
});

describe('owners removing each other at once', () => {
  it('leaves exactly one of them', async () => {
    const { orgs } = kiln.app.services;
    const [a, b] = [people.helper.user, people.outsider.user];
    for (let round = 0; round < 5; round++) {
      const org = await orgs.createOrg({ name: `pair${round}`, owner: a });
      await orgs.addMemberByHandle(a, org.handle, b.handle, 'owner');
      const results = await Promise.allSettled([
        orgs.removeMember(a, org.handle, b.handle),
        orgs.removeMember(b, org.handle, a.handle),
      ]);
      const members = await orgs.listMembers(org);
      expect(members.filter((m) => m.role === 'owner')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    }
  });
});
