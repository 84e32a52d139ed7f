/**
 * An organisation's CI secrets and variables through Gitea's REST routes
 * (`/orgs/{org}/actions/secrets|variables`): owners manage them with Gitea's statuses, members
 * are refused with 403 and everyone else with 404; every job of the organisation's repositories
 * receives them, a repository's own secret or variable of the same name winning.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Account } from '../../src/domain/users/user.types.ts';
import { repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import { useWorld, type World } from '../support/world.ts';
import { ReplayRunner } from './replay-runner.ts';

let world: World<'owner' | 'member' | 'outsider'>;
let org: Account;

useWorld(
  {
    env: { SERVICE_PROTECT_ENABLED: 'false', SERVICE_SECRET_KEY: 'org settings secret key' },
    people: ['owner', 'member', 'outsider'],
  },
  async (started) => {
    world = started;
    const { services } = world.kiln.app;
    org = await world.kiln.make.org(world.people.owner.user);
    await services.orgs.addMember(org, world.people.member.user, 'member');
  },
);

const call = (
  who: 'owner' | 'member' | 'outsider' | undefined,
  method: string,
  tail: string,
  body?: unknown,
) =>
  apiCall(world.kiln.url, `/orgs/${org.handle}/actions/${tail}`, {
    method,
    ...(who === undefined ? {} : { token: world.people[who].token }),
    ...(body === undefined ? {} : { body }),
  });

describe('organisation secrets', () => {
  it('are created (201), replaced (204), listed without values and deleted by owners', async () => {
    expect((await call('owner', 'PUT', 'secrets/deploy_key', { data: 'first' })).status).toBe(201);
    expect((await call('owner', 'PUT', 'secrets/DEPLOY_KEY', { data: 'second' })).status).toBe(204);
    const listed = await call('owner', 'GET', 'secrets');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([{ name: 'DEPLOY_KEY', created_at: expect.any(String) }]);
    expect(JSON.stringify(listed.body)).not.toContain('second');
    expect((await call('owner', 'PUT', 'secrets/GITEA_X', { data: 'x' })).status).toBe(422);
    expect((await call('owner', 'DELETE', 'secrets/deploy_key')).status).toBe(204);
    expect((await call('owner', 'DELETE', 'secrets/deploy_key')).status).toBe(404);
  });

  it('are refused with 422 when too short to mask in a log, whatever spaces surround them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 0, maxLength: 3 }).filter((v) => v.trim() === v),
        fc.constantFrom('', ' ', '  ', '\n', '\t'),
        async (core, pad) => {
          const refused = await call('owner', 'PUT', 'secrets/SHORT', {
            data: `${pad}${core}${pad}`,
          });
          expect(refused.status).toBe(422);
          expect(JSON.stringify(refused.body)).toContain('masking a value that short');
        },
      ),
      { numRuns: 30 },
    );
    expect((await call('owner', 'GET', 'secrets')).body).toEqual([]);
    expect((await call('owner', 'PUT', 'secrets/SHORT', { data: ' abcd ' })).status).toBe(201);
    expect((await call('owner', 'DELETE', 'secrets/SHORT')).status).toBe(204);
  });

  it('are refused to members with 403 and hidden from everyone else with 404', async () => {
    for (const [method, tail, body] of [
      ['GET', 'secrets', undefined],
      ['PUT', 'secrets/STOLEN', { data: 'x' }],
      ['DELETE', 'secrets/STOLEN', undefined],
    ] as const) {
      expect((await call('member', method, tail, body)).status).toBe(403);
      expect((await call('outsider', method, tail, body)).status).toBe(404);
      expect((await call(undefined, method, tail, body)).status).toBe(404);
    }
    expect((await call('owner', 'GET', 'secrets')).body).toEqual([]);
  });
});

describe('organisation variables', () => {
  it('follow Gitea: create 201 then 409, read, rename, list and delete', async () => {
    expect((await call('owner', 'POST', 'variables/region', { value: 'eu' })).status).toBe(201);
    expect((await call('owner', 'POST', 'variables/REGION', { value: 'us' })).status).toBe(409);
    const read = await call('owner', 'GET', 'variables/region');
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      owner_id: expect.any(Number),
      repo_id: 0,
      name: 'REGION',
      data: 'eu',
    });
    const renamed = await call('owner', 'PUT', 'variables/REGION', { name: 'zone', value: 'us' });
    expect(renamed.status).toBe(204);
    expect((await call('owner', 'GET', 'variables/REGION')).status).toBe(404);
    expect((await call('owner', 'GET', 'variables')).body).toEqual([
      { owner_id: expect.any(Number), repo_id: 0, name: 'ZONE', data: 'us' },
    ]);
    expect((await call('owner', 'PUT', 'variables/NOPE', { value: 'x' })).status).toBe(404);
    expect((await call('member', 'GET', 'variables/ZONE')).status).toBe(403);
    expect((await call('outsider', 'GET', 'variables/ZONE')).status).toBe(404);
    expect((await call('owner', 'DELETE', 'variables/zone')).status).toBe(204);
    expect((await call('owner', 'GET', 'variables')).body).toEqual([]);
  });
});

describe('what a job of the organisation receives', () => {
  it("gets the organisation's secrets and variables, the repository's winning", async () => {
    const { kiln, git, people } = world;
    const owner = people.owner;
    await call('owner', 'PUT', 'secrets/ORG_ONLY', { data: 'from the org' });
    await call('owner', 'PUT', 'secrets/SHARED', { data: 'org value' });
    await call('owner', 'POST', 'variables/ORG_VAR', { value: 'org var' });
    await call('owner', 'POST', 'variables/SHARED_VAR', { value: 'org var value' });
    const made = await apiCall(kiln.url, `/orgs/${org.handle}/repos`, {
      method: 'POST',
      token: owner.token,
      body: { name: 'app' },
    });
    expect(made.status).toBe(201);
    // Repository settings have no REST routes: set them as the settings page does.
    const found = await kiln.app.services.repos.get(owner.user, org.handle, 'app');
    const access = { repoId: found.repo.id, isRepoAdmin: true };
    await kiln.app.services.ciSecrets.put(access, 'SHARED', 'repo value');
    await kiln.app.services.ciVariables.put(access, 'SHARED_VAR', 'repo var value');

    const runner = await ReplayRunner.register(kiln, { labels: ['org-box'] });
    const dir = await git.init();
    await git.commit(dir, {
      '.gitea/workflows/ci.yml':
        'on: push\njobs:\n  a:\n    runs-on: org-box\n    steps: [{run: env}]\n',
    });
    const url = repoUrl(kiln.url, org.handle, 'app', { token: owner.token, as: 'password' });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
    const task = await runner.next();
    expect(task.secrets).toMatchObject({ ORG_ONLY: 'from the org', SHARED: 'repo value' });
    expect(task.vars).toEqual({ ORG_VAR: 'org var', SHARED_VAR: 'repo var value' });
    const outcome = await runner.run(task, { steps: [{ lines: ['token: from the org'] }] });
    expect(outcome.cancelled).toBe(false);
    const log = await fetch(
      `${kiln.url}/api/v1/repos/${org.handle}/app/actions/jobs/${task.id}/logs`,
      {
        headers: { authorization: `token ${owner.token}` },
      },
    );
    expect(await log.text()).toContain('token: ***');
  });
});
