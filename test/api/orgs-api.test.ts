/**
 * `POST /api/v1/orgs`, as Gitea serves it: the caller becomes the first owner and gets Gitea's
 * Organization back. Action owners (SERVICE_CI_ACTION_OWNERS) are refused in every letter case
 * to anyone but an administrator, listed admin handles to everyone, and neighbouring names are
 * free.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { checkGiteaResponse } from './gitea-swagger.ts';

const ADMIN = 'api-boss';

let kiln: TestServer;
let person: Person;
let adminToken: string;
useWorld(
  {
    people: ['person'],
    env: { SERVICE_CI_ACTION_OWNERS: 'actions,setup-tools', SERVICE_ADMIN_HANDLES: ADMIN },
  },
  async (world) => {
    kiln = world.kiln;
    person = world.people.person;
    adminToken = (await kiln.make.userWithToken({ handle: ADMIN })).token;
  },
);

async function createOrg(token: string, body: Record<string, unknown>) {
  const answer = await apiCall(kiln.url, '/orgs', { method: 'POST', token, body });
  checkGiteaResponse('POST', '/orgs', answer.status, answer.body);
  return answer;
}

const actionOwner = fc
  .constantFrom('actions', 'setup-tools')
  .chain((name) => fc.mixedCase(fc.constant(name)));

describe('POST /api/v1/orgs', () => {
  it('creates an organisation owned by the caller, in Gitea’s shape', async () => {
    const made = await createOrg(person.token, {
      username: 'Guild',
      full_name: 'The Guild',
      visibility: 'private',
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: 'Guild',
      username: 'Guild',
      full_name: 'The Guild',
      visibility: 'private',
    });
    const org = await kiln.app.services.orgs.getOrg('guild');
    expect(await kiln.app.services.orgs.roleOf(org.id, person.user.id)).toBe('owner');
    expect((await createOrg(person.token, { username: 'GUILD' })).status).toBe(409);
    expect((await createOrg(person.token, { username: 'x', visibility: 'limited' })).status).toBe(
      422,
    );
    expect(
      (await apiCall(kiln.url, '/orgs', { method: 'POST', body: { username: 'anon' } })).status,
    ).toBe(401);
  });

  it('refuses an action owner to a person who is not an administrator, in every letter case', async () => {
    await fc.assert(
      fc.asyncProperty(actionOwner, async (username) => {
        const refused = await createOrg(person.token, { username });
        expect(refused.status).toBe(422);
        expect(refused.body.message).toContain('reserved');
        expect(await kiln.app.services.users.findAccount(username)).toBeUndefined();
      }),
      { numRuns: 20 },
    );
    for (const username of ['actions-x', 'action', 'xactions', 'setup-tool', 'setup-tools2']) {
      expect((await createOrg(person.token, { username })).status, username).toBe(201);
    }
  });

  it('lets an administrator create an action owner, and nobody an admin handle', async () => {
    const [username = 'Actions'] = fc.sample(
      actionOwner.filter((name) => name.toLowerCase() === 'actions'),
      1,
    );
    const made = await createOrg(adminToken, { username });
    expect(made.status).toBe(201);
    expect(made.body.name).toBe(username);
    for (const token of [adminToken, person.token]) {
      const refused = await createOrg(token, { username: ADMIN.toUpperCase() });
      expect(refused.status).toBe(422);
      expect(refused.body.message).toContain('reserved');
    }
  });
});
