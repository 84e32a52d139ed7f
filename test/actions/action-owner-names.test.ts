/**
 * The action owners (SERVICE_CI_ACTION_OWNERS) are names nobody but an administrator takes:
 * sign-up refuses every letter case of them (and of the listed admin handles), as does creating
 * an organisation for anyone but an administrator, while neighbouring names stay free. The
 * operator's command line and an administrator's form create them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { signedIn } from '../web/fixtures.ts';

const ACTION_OWNERS = ['actions', 'Acme-Tools'];
const ADMIN = 'boss';
const RESERVED = [...ACTION_OWNERS, ADMIN].map((name) => name.toLowerCase());

let kiln: TestServer;
let person: Person;
let member: Browser;
let admin: Browser;
useWorld(
  {
    people: ['person'],
    env: { SERVICE_CI_ACTION_OWNERS: ACTION_OWNERS.join(','), SERVICE_ADMIN_HANDLES: ADMIN },
  },
  async (world) => {
    kiln = world.kiln;
    person = world.people.person;
    member = await signedIn(kiln, person.user.handle, person.password);
    await kiln.make.user({ handle: ADMIN, password: 'boss password' });
    admin = await signedIn(kiln, ADMIN, 'boss password');
  },
);

/** Any letter case of a reserved name. */
const reservedName = fc.constantFrom(...RESERVED).chain((name) => fc.mixedCase(fc.constant(name)));

/**
 * Names next to a reserved one that must stay free: a character more before or after, a
 * suffix, one character fewer, a letter changed.
 */
const neighbour = fc
  .tuple(
    fc.constantFrom(...RESERVED),
    fc.constantFrom('prefix', 'suffix', 'dash', 'shorter', 'changed'),
    fc.stringMatching(/^[a-z0-9]{1,3}$/),
  )
  .map(([name, how, extra]) => {
    if (how === 'prefix') return `${extra}${name}`;
    if (how === 'suffix') return `${name}${extra}`;
    if (how === 'dash') return `${name}-${extra}`;
    if (how === 'shorter') return name.slice(0, -1);
    return `${name.slice(0, 1)}${extra.slice(0, 1) === name[1] ? 'z' : extra.slice(0, 1)}${name.slice(2)}`;
  })
  .filter((name) => !RESERVED.includes(name.toLowerCase()));

/** Names already handed out in this suite (handles are one namespace, in any case). */
const taken = new Set<string>();
function fresh(name: string): boolean {
  if (taken.has(name.toLowerCase())) return false;
  taken.add(name.toLowerCase());
  return true;
}

/** Nobody holds the name but the administrator made for the suite. */
async function expectNoNewAccount(name: string): Promise<void> {
  const found = await kiln.app.services.users.findAccount(name);
  expect(found === undefined || found.handle === ADMIN, `${name} was created`).toBe(true);
}

async function signUp(username: string): Promise<Response> {
  const browser = new Browser(kiln.url);
  await browser.get('/signup');
  return browser.post('/signup', {
    username,
    email: `${username.toLowerCase()}-${taken.size}@example.test`,
    password: 'password123',
  });
}

describe('action owners and admin handles at sign-up', () => {
  it('refuses every letter case of a reserved name and creates nothing', async () => {
    await fc.assert(
      fc.asyncProperty(reservedName, async (username) => {
        const response = await signUp(username);
        expect(response.status).toBe(422);
        expect(await response.text()).toContain('reserved');
        await expectNoNewAccount(username);
      }),
      { numRuns: 25 },
    );
  });

  it('signs up neighbouring names', async () => {
    const names = ['actions-x', 'action', 'xactions', 'bosses', ...fc.sample(neighbour, 12)];
    for (const username of names.filter(fresh)) {
      const response = await signUp(username);
      expect(response.status, `${username}: ${await response.clone().text()}`).toBe(303);
      expect((await kiln.app.services.users.getUser(username)).handle).toBe(username);
    }
  });
});

describe('action owners at organisation creation', () => {
  it('refuses a person who is not an administrator, in every letter case', async () => {
    await fc.assert(
      fc.asyncProperty(reservedName, async (name) => {
        const response = await member.post('/org/create', { name, visibility: 'public' });
        expect(response.status).toBe(422);
        expect(await response.text()).toContain('reserved');
        await expectNoNewAccount(name);
      }),
      { numRuns: 25 },
    );
  });

  it('lets a person who is not an administrator create neighbouring names', async () => {
    const names = ['actions-org', 'actionz', ...fc.sample(neighbour, 8)].filter(fresh);
    for (const name of names) {
      const response = await member.post('/org/create', { name, visibility: 'public' });
      expect(response.status, name).toBe(303);
      expect((await kiln.app.services.orgs.getOrg(name)).handle).toBe(name);
    }
  });

  it('lets an administrator create an action owner, never an admin handle', async () => {
    const name = fc.sample(fc.mixedCase(fc.constant('acme-tools')), 1)[0] ?? 'acme-tools';
    const created = await admin.post('/org/create', { name, visibility: 'public' });
    expect(created.status).toBe(303);
    const org = await kiln.app.services.orgs.getOrg('ACME-TOOLS');
    expect(org.handle).toBe(name);
    // Taken now, in any case, for everyone.
    const again = await admin.post('/org/create', { name: 'Acme-Tools' });
    expect(again.status).toBe(409);
    const admins = await admin.post('/org/create', { name: 'BOSS' });
    expect(admins.status).toBe(422);
    expect(await admins.text()).toContain('reserved');
  });
});
