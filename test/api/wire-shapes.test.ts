/**
 * Wire shapes against Gitea 1.22.0's swagger: a repository scenario touching every object Kiln
 * serves (version, users, repositories and their lists, branches, releases, statuses, labels),
 * each body validated against the definition Gitea declares for that route and status, with
 * every key Gitea always emits required. The checker itself is shown to catch drift.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { addCommit, apiClient, type Caller, caller, createRepo } from './fixtures.ts';
import { checkGiteaResponse, declaredSchema, expectGiteaDefinition } from './gitea-swagger.ts';

let kiln: TestServer;
let api: ReturnType<typeof apiClient>;
let alice: Caller;
let bob: Caller;

beforeAll(async () => {
  kiln = await startTestServer();
  api = apiClient(kiln);
  alice = await caller(kiln, 'Alice Doe');
  bob = await caller(kiln);
});
afterAll(async () => {
  await kiln?.close();
});

async function ok(path: string, options: Parameters<typeof api>[1] = {}, status = 200) {
  const response = await api(path, options);
  expect(response.status, `${options.method ?? 'GET'} ${path}`).toBe(status);
  return json(response);
}

describe('a repository scenario, held against Gitea’s definitions', () => {
  it('serves ServerVersion and the two User views', async () => {
    expectGiteaDefinition(await ok('/version'), 'ServerVersion');
    const self = await ok('/user', { token: alice.token });
    expectGiteaDefinition(self, 'User');
    expect(self.email).toBe(alice.email);
    const other = await ok(`/users/${alice.handle}`, { token: bob.token });
    expectGiteaDefinition(other, 'User');
    expect(other).not.toHaveProperty('email');
  });

  it('serves Repository objects and lists with every key', async () => {
    const created = await ok(
      '/user/repos',
      { token: alice.token, method: 'POST', body: { name: 'shapes', auto_init: true } },
      201,
    );
    expectGiteaDefinition(created, 'Repository');
    const repo = await ok(`/repos/${alice.handle}/shapes`, { token: bob.token });
    expectGiteaDefinition(repo, 'Repository');
    expect(repo).toMatchObject({
      permissions: { admin: false, push: false, pull: true },
      default_merge_style: 'merge',
      has_pull_requests: true,
      has_issues: false,
      archived: false,
      mirror: false,
    });
    for (const path of ['/repos', '/user/repos', `/users/${alice.handle}/repos`]) {
      const list = await ok(path, { token: alice.token });
      expect(list.length).toBeGreaterThan(0);
      for (const item of list) expectGiteaDefinition(item, 'Repository');
    }
    const search = await ok('/repos/search?q=shapes');
    expectGiteaDefinition(search, 'SearchResults');
    const fork = await ok(
      `/repos/${alice.handle}/shapes/forks`,
      { token: bob.token, method: 'POST', body: {} },
      202,
    );
    expectGiteaDefinition(fork, 'Repository');
    expectGiteaDefinition(fork.parent, 'Repository');
  });

  it('serves Branch, Release, CombinedStatus and CommitStatus objects', async () => {
    await createRepo(kiln, alice, 'objects');
    const sha = await addCommit(kiln, alice.handle, 'objects', 'topic/a', {
      author: `Alice Doe <${alice.email}>`,
    });
    for (const branch of await ok(`/repos/${alice.handle}/objects/branches`)) {
      expectGiteaDefinition(branch, 'Branch');
    }
    expectGiteaDefinition(await ok(`/repos/${alice.handle}/objects/branches/topic%2Fa`), 'Branch');
    const release = await ok(
      `/repos/${alice.handle}/objects/releases`,
      { token: alice.token, method: 'POST', body: { tag_name: 'v1', target_commitish: sha } },
      201,
    );
    expectGiteaDefinition(release, 'Release');
    expectGiteaDefinition(await ok(`/repos/${alice.handle}/objects/releases/latest`), 'Release');
    expectGiteaDefinition(
      await ok(`/repos/${alice.handle}/objects/releases/${release.id}`),
      'Release',
    );
    const combined = await ok(`/repos/${alice.handle}/objects/commits/topic/a/status`);
    expectGiteaDefinition(combined, 'CombinedStatus');
    const posted = await ok(
      `/repos/${alice.handle}/objects/statuses/${sha}`,
      { token: alice.token, method: 'POST', body: { state: 'failure', context: 'ci' } },
      201,
    );
    expectGiteaDefinition(posted, 'CommitStatus');
    expect(await ok(`/repos/${alice.handle}/objects/labels`)).toEqual([]);
  });
});

describe('the checker', () => {
  const branchPath = '/repos/a/b/branches/feature/x';

  it('finds Gitea’s declared schema for greedy and Kiln-only routes', () => {
    expect(declaredSchema('GET', branchPath, 200)).toBe('#/responses/Branch/schema');
    expect(declaredSchema('GET', '/repos/a/b/commits/x/y/status', 200)).toBe(
      '#/responses/CombinedStatus/schema',
    );
    expect(declaredSchema('GET', '/repos/a/b/releases/latest', 200)).toBe(
      '#/responses/Release/schema',
    );
    expect(declaredSchema('GET', '/repos', 200)).toBe('#/responses/RepositoryList/schema');
    expect(() => declaredSchema('POST', '/repos/a/b/releases', 200)).toThrow(/never answers 200/);
  });

  it('catches a missing key, a wrong type, a bad time and a leaked email', async () => {
    const branch = await ok(`/repos/${alice.handle}/objects/branches/main`);
    const drop = structuredClone(branch);
    delete drop.effective_branch_protection_name;
    expect(() => checkGiteaResponse('GET', branchPath, 200, drop)).toThrow(/required/);
    expect(() =>
      checkGiteaResponse('GET', branchPath, 200, { ...branch, protected: 'no' }),
    ).toThrow(/boolean/);
    const badTime = structuredClone(branch);
    badTime.commit.timestamp = 'yesterday';
    expect(() => checkGiteaResponse('GET', branchPath, 200, badTime)).toThrow(/date-time/);
    const repo = await ok(`/repos/${alice.handle}/objects`);
    const noStyle = structuredClone(repo);
    delete noStyle.default_merge_style;
    expect(() => checkGiteaResponse('GET', '/repos/a/b', 200, noStyle)).toThrow(/required/);
    const noPush = structuredClone(repo);
    delete noPush.permissions.push;
    expect(() => checkGiteaResponse('GET', '/repos/a/b', 200, noPush)).toThrow(/push/);
    const leaked = structuredClone(repo);
    leaked.owner.email = 'x@example.test';
    expect(() => checkGiteaResponse('GET', '/repos/a/b', 200, leaked)).toThrow(/email/);
    expect(() => checkGiteaResponse('GET', '/repos/a/b', 404, { message: 'x' })).toThrow(/url/);
  });
});
