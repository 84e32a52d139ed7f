/**
 * A person who holds an action owner's name without being an administrator — one who had it
 * before it was reserved, or one the operator created — gets no repository into it: neither a
 * new one nor a fork of someone's action, in any letter case of the name, so the actions source
 * never serves code they chose. An administrator holding one still creates there.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';

const ADMIN = 'acme-tools';

let kiln: TestServer;
let stranger: Person;
let holderToken: string;
let adminToken: string;
useWorld(
  {
    people: ['stranger'],
    env: { SERVICE_CI_ACTION_OWNERS: `actions,${ADMIN}`, SERVICE_ADMIN_HANDLES: ADMIN },
  },
  async (world) => {
    kiln = world.kiln;
    stranger = world.people.stranger;
    // Stored in another letter case than the configured name.
    ({ token: holderToken } = await kiln.make.userWithToken({ handle: 'ACTIONS' }));
    ({ token: adminToken } = await kiln.make.userWithToken({ handle: ADMIN }));
    await kiln.app.services.repos.create(stranger.user, {
      name: 'checkout',
      private: false,
      autoInit: true,
    });
  },
);

const repoName = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/);

describe('a person holding an action owner', () => {
  it('neither creates nor forks a repository into it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('create', 'fork'),
        repoName,
        fc.boolean(),
        fc.boolean(),
        async (how, name, isPrivate, autoInit) => {
          const answer =
            how === 'create'
              ? await apiCall(kiln.url, '/user/repos', {
                  method: 'POST',
                  token: holderToken,
                  body: { name, private: isPrivate, auto_init: autoInit },
                })
              : await apiCall(kiln.url, `/repos/${stranger.user.handle}/checkout/forks`, {
                  method: 'POST',
                  token: holderToken,
                  body: { name },
                });
          expect(answer.status, `${how} ${name}`).toBe(403);
          const served = await fetch(
            `${kiln.url}/-/actions/actions/${name}/info/refs?service=git-upload-pack`,
          );
          expect(served.status).toBe(404);
          const found = await apiCall(kiln.url, `/repos/ACTIONS/${name}`, { token: adminToken });
          expect(found.status).toBe(404);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('lets an administrator who holds one create and fork there', async () => {
    const created = await apiCall(kiln.url, '/user/repos', {
      method: 'POST',
      token: adminToken,
      body: { name: 'setup-node', auto_init: true },
    });
    expect(created.status).toBe(201);
    const fork = await apiCall(kiln.url, `/repos/${stranger.user.handle}/checkout/forks`, {
      method: 'POST',
      token: adminToken,
      body: {},
    });
    expect(fork.status).toBe(202);
  });
});
