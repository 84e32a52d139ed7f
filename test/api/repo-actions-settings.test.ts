/**
 * A repository's CI secrets and variables through Gitea's REST routes
 * (`/repos/{owner}/{repo}/actions/secrets|variables`), driven by gitea-js as stock clients call
 * them: admins manage them with Gitea's statuses, writers and readers are refused with 403,
 * outsiders of a private repository see 404, names follow the settings page's rules, and what
 * is set reaches the repository's jobs.
 */
import fc from 'fast-check';
import { giteaApi } from 'gitea-js';
import { describe, expect, it } from 'vitest';
import { ReplayRunner } from '../actions/replay-runner.ts';
import { apiCall } from '../support/http.ts';
import { useWorld, type World } from '../support/world.ts';
import { commitTo } from '../web/fixtures.ts';

type Who = 'owner' | 'writer' | 'reader' | 'outsider';
let world: World<Who, 'open' | 'hidden'>;
let client: ReturnType<typeof giteaApi>;

useWorld(
  {
    env: { SERVICE_PROTECT_ENABLED: 'false', SERVICE_SECRET_KEY: 'repo settings secret key' },
    people: ['owner', 'writer', 'reader', 'outsider'],
    repos: [
      { owner: 'owner', name: 'open', autoInit: true },
      { owner: 'owner', name: 'hidden', autoInit: true, private: true },
    ],
  },
  async (started) => {
    world = started;
    const { collaborators } = world.kiln.app.services;
    const owner = world.people.owner.user;
    for (const repo of ['open', 'hidden']) {
      await collaborators.put(owner, owner.handle, repo, world.people.writer.user.handle, 'write');
      await collaborators.put(owner, owner.handle, repo, world.people.reader.user.handle, 'read');
    }
    client = giteaApi(world.kiln.url, { token: world.people.owner.token, customFetch: fetch });
  },
);

const call = (
  who: Who | undefined,
  method: string,
  repo: 'open' | 'hidden',
  tail: string,
  body?: unknown,
) =>
  apiCall(world.kiln.url, `/repos/${world.people.owner.user.handle}/${repo}/actions/${tail}`, {
    method,
    ...(who === undefined ? {} : { token: world.people[who].token }),
    ...(body === undefined ? {} : { body }),
  });

/** gitea-js throws the Response on non-2xx; give the status back instead. */
async function statusOf(request: Promise<{ status: number }>): Promise<number> {
  try {
    return (await request).status;
  } catch (thrown) {
    return (thrown as { status: number }).status;
  }
}

describe('repository secrets', () => {
  it('are created (201), replaced (204), listed without values and deleted (gitea-js)', async () => {
    const owner = world.people.owner.user.handle;
    const repos = client.repos;
    expect(
      await statusOf(repos.updateRepoSecret(owner, 'open', 'deploy_key', { data: 'one1' })),
    ).toBe(201);
    expect(
      await statusOf(repos.updateRepoSecret(owner, 'open', 'DEPLOY_KEY', { data: 'two2' })),
    ).toBe(204);
    const listed = await repos.repoListActionsSecrets(owner, 'open');
    expect(listed.data).toEqual([{ name: 'DEPLOY_KEY', created_at: expect.any(String) }]);
    expect(JSON.stringify(listed.data)).not.toContain('two2');
    expect(await statusOf(repos.deleteRepoSecret(owner, 'open', 'deploy_key'))).toBe(204);
    expect(await statusOf(repos.deleteRepoSecret(owner, 'open', 'deploy_key'))).toBe(404);
    expect((await repos.repoListActionsSecrets(owner, 'open')).data).toEqual([]);
  });

  it('reach the jobs of the repository, with its variables', async () => {
    const { kiln } = world;
    const owner = world.people.owner.user;
    await commitTo(kiln, world.repos.open, {
      branch: 'main',
      files: {
        '.gitea/workflows/deploy.yml': `on: workflow_dispatch
jobs:
  deploy:
    runs-on: settings-box
    steps: [{run: ./deploy}]
`,
      },
    });
    const runner = await ReplayRunner.register(kiln, { labels: ['settings-box'] });
    expect(
      (await call('owner', 'PUT', 'open', 'secrets/deploy_key', { data: 'via api' })).status,
    ).toBe(201);
    expect((await call('owner', 'POST', 'open', 'variables/region', { value: 'eu' })).status).toBe(
      201,
    );
    const dispatched = await apiCall(
      kiln.url,
      `/repos/${owner.handle}/open/actions/workflows/deploy.yml/dispatches`,
      { method: 'POST', token: world.people.owner.token, body: { ref: 'main' } },
    );
    expect(dispatched.status).toBe(204);
    const task = await runner.next();
    expect(task.secrets.DEPLOY_KEY).toBe('via api');
    expect(task.vars.REGION).toBe('eu');
    await runner.run(task);
    expect((await call('owner', 'DELETE', 'open', 'secrets/DEPLOY_KEY')).status).toBe(204);
    expect((await call('owner', 'DELETE', 'open', 'variables/REGION')).status).toBe(204);
  });
});

describe('repository variables', () => {
  it('follow Gitea: create 201 then 409, read, rename, list and delete (gitea-js)', async () => {
    const owner = world.people.owner.user.handle;
    const repos = client.repos;
    const create = (name: string, value: string) =>
      statusOf(repos.createRepoVariable(owner, 'open', name, { value }));
    expect(await create('region', 'eu')).toBe(201);
    expect(await create('REGION', 'us')).toBe(409);
    const read = await repos.getRepoVariable(owner, 'open', 'region');
    expect(read.data).toEqual({
      owner_id: 0,
      repo_id: expect.any(Number),
      name: 'REGION',
      data: 'eu',
    });
    const renamed = repos.updateRepoVariable(owner, 'open', 'REGION', {
      name: 'zone',
      value: 'us',
    });
    expect(await statusOf(renamed)).toBe(204);
    expect(await statusOf(repos.getRepoVariable(owner, 'open', 'REGION'))).toBe(404);
    expect((await repos.getRepoVariablesList(owner, 'open')).data).toEqual([
      { owner_id: 0, repo_id: read.data.repo_id, name: 'ZONE', data: 'us' },
    ]);
    expect(await create('other', 'x')).toBe(201);
    const taken = repos.updateRepoVariable(owner, 'open', 'other', { name: 'zone', value: 'y' });
    expect(await statusOf(taken)).toBe(409);
    expect(await statusOf(repos.updateRepoVariable(owner, 'open', 'NOPE', { value: 'x' }))).toBe(
      404,
    );
    expect(await statusOf(repos.deleteRepoVariable(owner, 'open', 'zone'))).toBe(204);
    expect(await statusOf(repos.deleteRepoVariable(owner, 'open', 'other'))).toBe(204);
    expect(await statusOf(repos.deleteRepoVariable(owner, 'open', 'zone'))).toBe(404);
    expect((await repos.getRepoVariablesList(owner, 'open')).data).toEqual([]);
  });
});

describe('who may', () => {
  const requests = [
    ['GET', 'secrets', undefined],
    ['PUT', 'secrets/STOLEN', { data: 'stolen' }],
    ['DELETE', 'secrets/STOLEN', undefined],
    ['GET', 'variables', undefined],
    ['GET', 'variables/STOLEN', undefined],
    ['POST', 'variables/STOLEN', { value: 'x' }],
    ['PUT', 'variables/STOLEN', { value: 'x' }],
    ['DELETE', 'variables/STOLEN', undefined],
  ] as const;

  it('refuses writers and readers with 403 and anonymous callers with 401', async () => {
    for (const [method, tail, body] of requests) {
      expect((await call('writer', method, 'open', tail, body)).status).toBe(403);
      expect((await call('reader', method, 'open', tail, body)).status).toBe(403);
      expect((await call('outsider', method, 'open', tail, body)).status).toBe(403);
      expect((await call(undefined, method, 'open', tail, body)).status).toBe(401);
    }
    expect((await call('owner', 'GET', 'open', 'secrets')).body).toEqual([]);
    expect((await call('owner', 'GET', 'open', 'variables')).body).toEqual([]);
  });

  it('hides a private repository from outsiders and anonymous callers with 404', async () => {
    for (const [method, tail, body] of requests) {
      expect((await call('outsider', method, 'hidden', tail, body)).status).toBe(404);
      expect((await call(undefined, method, 'hidden', tail, body)).status).toBe(404);
      expect((await call('writer', method, 'hidden', tail, body)).status).toBe(403);
    }
    expect((await call('owner', 'GET', 'hidden', 'secrets')).body).toEqual([]);
  });
});

describe('names', () => {
  it('are refused with 422 unless letters, digits and underscores not led by a digit', async () => {
    const bad = fc.oneof(
      fc.stringMatching(/^[0-9][A-Za-z0-9_]{0,8}$/),
      fc.stringMatching(/^[A-Za-z_]{1,4}[-.~!$*+ ][A-Za-z_]{1,4}$/),
      fc.constantFrom('GITHUB_TOKEN', 'gitea_x', 'RUNNER_OS', 'ci', 'FORGEJO_Y'),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (name) => {
        const path = encodeURIComponent(name);
        const secret = await call('owner', 'PUT', 'open', `secrets/${path}`, { data: 'valid' });
        expect(secret.status).toBe(422);
        const variable = await call('owner', 'POST', 'open', `variables/${path}`, { value: 'v' });
        expect(variable.status).toBe(422);
      }),
      { numRuns: 40 },
    );
    expect((await call('owner', 'GET', 'open', 'secrets')).body).toEqual([]);
    expect((await call('owner', 'GET', 'open', 'variables')).body).toEqual([]);
  });
});
