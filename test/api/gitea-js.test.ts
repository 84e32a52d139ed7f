/**
 * Kiln driven through `gitea-js`, a stock Gitea client generated from Gitea's swagger: it sends
 * `Authorization: Bearer`, raw slashes in path parameters, and parses every answer as JSON,
 * throwing on non-2xx. Version, user, repositories, branches, releases and statuses.
 */
import { giteaApi } from 'gitea-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';
import { addCommit, type Caller, caller } from './fixtures.ts';
import { expectGiteaDefinition } from './gitea-swagger.ts';

let kiln: TestServer;
let alice: Caller;
let client: ReturnType<typeof giteaApi>;
let anonymous: ReturnType<typeof giteaApi>;

beforeAll(async () => {
  kiln = await startTestServer();
  alice = await caller(kiln, 'Alice Doe');
  client = giteaApi(kiln.url, { token: alice.token, customFetch: fetch });
  anonymous = giteaApi(kiln.url, { customFetch: fetch });
});
afterAll(async () => {
  await kiln?.close();
});

/** gitea-js throws the Response with the parsed JSON in `.error`; give the status back instead. */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (thrown) {
    return (thrown as { status: number }).status;
  }
}

describe('gitea-js', () => {
  it('reads the version and the signed-in user', async () => {
    const { data: version } = await anonymous.version.getVersion();
    expect(version.version).toBe('1.13.0');
    const { data: user } = await client.user.userGetCurrent();
    expect(user.login).toBe(alice.handle);
    expect(user.email).toBe(alice.email);
    expect(user.full_name).toBe('Alice Doe');
    expect(await statusOf(anonymous.user.userGetCurrent())).toBe(401);
  });

  it('creates, reads and lists repositories', async () => {
    const { data: created, status } = await client.user.createCurrentUserRepo({
      name: 'via-js',
      auto_init: true,
      description: 'made by gitea-js',
    });
    expect(status).toBe(201);
    expect(created.full_name).toBe(`${alice.handle}/via-js`);
    const { data: repo } = await client.repos.repoGet(alice.handle, 'via-js');
    expectGiteaDefinition(repo, 'Repository');
    expect(repo.permissions).toEqual({ admin: true, push: true, pull: true });
    expect(repo.default_branch).toBe('main');
    expect(repo.empty).toBe(false);
    const { data: mine, headers } = await client.user.userCurrentListRepos({ page: 1, limit: 10 });
    expect(mine.map((r) => r.name)).toContain('via-js');
    expect(headers.get('x-total-count')).toBe(String(mine.length));
    expect(await statusOf(client.repos.repoGet(alice.handle, 'missing'))).toBe(404);
  });

  it('lists and gets branches, slashes and all', async () => {
    const sha = await addCommit(kiln, alice.handle, 'via-js', 'renovate/lodash-4.x');
    const { data: branches } = await client.repos.repoListBranches(alice.handle, 'via-js', {
      page: 1,
      limit: 50,
    });
    expect(branches.map((b) => b.name)).toEqual(['main', 'renovate/lodash-4.x']);
    const { data: branch } = await client.repos.repoGetBranch(
      alice.handle,
      'via-js',
      'renovate/lodash-4.x',
    );
    expect(branch.commit?.id).toBe(sha);
    expect(branch.user_can_push).toBe(true);
    expect(await statusOf(client.repos.repoGetBranch(alice.handle, 'via-js', 'nope'))).toBe(404);
  });

  it('creates, lists, reads, edits and deletes releases', async () => {
    const { data: created, status } = await client.repos.repoCreateRelease(alice.handle, 'via-js', {
      tag_name: 'v1.0.0',
      name: 'One',
      body: 'first',
      target_commitish: 'main',
    });
    expect(status).toBe(201);
    await client.repos.repoCreateRelease(alice.handle, 'via-js', {
      tag_name: 'v1.1.0-rc.1',
      prerelease: true,
    });
    const { data: list } = await client.repos.repoListReleases(alice.handle, 'via-js', {
      page: 1,
      limit: 10,
    });
    expect(list.map((r) => r.tag_name)).toEqual(['v1.1.0-rc.1', 'v1.0.0']);
    const { data: byTag } = await client.repos.repoGetReleaseByTag(
      alice.handle,
      'via-js',
      'v1.0.0',
    );
    expect(byTag.id).toBe(created.id);
    const { data: latest } = await client.repos.repoGetLatestRelease(alice.handle, 'via-js');
    expect(latest.tag_name).toBe('v1.0.0');
    const { data: byId } = await client.repos.repoGetRelease(
      alice.handle,
      'via-js',
      created.id ?? 0,
    );
    expect(byId.name).toBe('One');
    const { data: edited } = await client.repos.repoEditRelease(
      alice.handle,
      'via-js',
      created.id ?? 0,
      {
        name: 'One, edited',
        body: 'better notes',
      },
    );
    expect(edited).toMatchObject({ name: 'One, edited', body: 'better notes', tag_name: 'v1.0.0' });
    const deleted = await client.repos.repoDeleteRelease(alice.handle, 'via-js', created.id ?? 0);
    expect(deleted.status).toBe(204);
    const byTagDeleted = await client.repos.repoDeleteReleaseByTag(
      alice.handle,
      'via-js',
      'v1.1.0-rc.1',
    );
    expect(byTagDeleted.status).toBe(204);
    expect(await statusOf(client.repos.repoGetLatestRelease(alice.handle, 'via-js'))).toBe(404);
  });

  it('posts a status and reads the combined status and the list', async () => {
    const { data: branch } = await client.repos.repoGetBranch(alice.handle, 'via-js', 'main');
    const sha = branch.commit?.id ?? '';
    const { data: posted, status } = await client.repos.repoCreateStatus(
      alice.handle,
      'via-js',
      sha,
      {
        state: 'success',
        context: 'ci/build',
        description: 'all good',
        target_url: 'https://ci.example.test/1',
      },
    );
    expect(status).toBe(201);
    expect(posted.status).toBe('success');
    expect(posted.context).toBe('ci/build');
    const { data: combined } = await client.repos.repoGetCombinedStatusByRef(
      alice.handle,
      'via-js',
      'renovate/lodash-4.x',
    );
    expect(combined).toMatchObject({ state: 'success', total_count: 0, statuses: [] });
    expect(combined.repository?.full_name).toBe(`${alice.handle}/via-js`);
    const { data: statuses } = await client.repos.repoListStatusesByRef(
      alice.handle,
      'via-js',
      'main',
    );
    expect(statuses).toEqual([]);
    expect(
      await statusOf(client.repos.repoListStatusesByRef(alice.handle, 'via-js', 'renovate/gone')),
    ).toBe(404);
    const { data: labels } = await client.repos.issueListLabels(alice.handle, 'via-js');
    expect(labels).toEqual([]);
  });
});
