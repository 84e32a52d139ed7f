/**
 * Personal access token scopes and expiry, seen by clients: every REST route has a scope
 * category; a `read:repository` token clones but cannot push, merge or create; a `read:user`
 * token cannot create a repository; an expired token is refused like an unknown one; and the
 * refusal is Gitea's 403 with the missing scope named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { scopeCategoriesOf } from '../../src/http/api/v1/route-scopes.ts';
import { routesOf } from '../../src/http/plugins/route-catalog.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, makeRepo } from '../web/fixtures.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  ({ user: owner } = await kiln.make.user());
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

const scopeMessage = (scope: string) =>
  `token does not have at least one of required scope(s): [${scope}]`;

describe('the route scope table', () => {
  it('gives every registered REST route a category', () => {
    const api = routesOf(kiln.server).filter((route) => route.url.startsWith('/api/v1/'));
    expect(api.length).toBeGreaterThan(40);
    const missing = api
      .filter((route) => route.url !== '/api/v1/swagger.json')
      .filter((route) => scopeCategoriesOf(route.url.slice('/api/v1'.length)) === undefined);
    expect(missing).toEqual([]);
  });

  it('puts Gitea routes in Gitea categories', () => {
    expect(scopeCategoriesOf('/user/repos')).toEqual(['user', 'repository']);
    expect(scopeCategoriesOf('/repos/:owner/:name/pulls/:number/merge')).toEqual(['repository']);
    expect(scopeCategoriesOf('/repos/:owner/:name/labels')).toEqual(['issue']);
    expect(scopeCategoriesOf('/users/:username')).toEqual(['user']);
    expect(scopeCategoriesOf('/version')).toEqual([]);
  });
});

describe('a read:repository token', () => {
  it('clones, but cannot push, merge a pull or create a repository', async () => {
    const repo = await makeRepo(kiln, owner, `scoped-${Date.now()}`, { private: true });
    const root = await commitTo(kiln, repo, { branch: 'main', files: { 'a.txt': 'a\n' } });
    await commitTo(kiln, repo, {
      branch: 'feature',
      parents: [root],
      files: { 'a.txt': 'b\n' },
      message: 'Change a',
    });
    const { pull } = await kiln.app.services.pulls.create(owner, owner.handle, repo.name, {
      title: 'Change',
      head: 'feature',
      base: 'main',
    });
    const token = await kiln.make.token(owner, undefined, { scopes: ['read:repository'] });
    const url = repoUrl(kiln.url, owner.handle, repo.name, { token, as: 'password' });

    const dir = await git.clone(url);
    expect(await git.ok(['log', '--format=%s', '-1'], { cwd: dir })).not.toBe('');
    await git.commit(dir, { 'b.txt': 'b\n' }, 'second');
    const push = await git.fails(['push', url, 'HEAD:main'], { cwd: dir });
    expect(push.stderr).toContain(scopeMessage('write:repository'));

    const merge = await apiCall(
      kiln.url,
      `/repos/${owner.handle}/${repo.name}/pulls/${pull.number}/merge`,
      { method: 'POST', token, body: { Do: 'merge' } },
    );
    expect(merge.status).toBe(403);
    expect(merge.body.message).toBe(scopeMessage('write:repository'));
    expect(merge.body.url).toMatch(/\/api\/swagger$/);
    const after = await apiCall(
      kiln.url,
      `/repos/${owner.handle}/${repo.name}/pulls/${pull.number}`,
      { token },
    );
    expect(after.status).toBe(200);
    expect(after.body.merged).toBe(false);

    const read = await apiCall(kiln.url, `/repos/${owner.handle}/${repo.name}`, { token });
    expect(read.status).toBe(200);
    const me = await apiCall(kiln.url, '/user', { token });
    expect(me.status).toBe(403);
    expect(me.body.message).toBe(scopeMessage('read:user'));
  });
});

describe('a read:user token', () => {
  it('reads its owner but cannot create a repository', async () => {
    const token = await kiln.make.token(owner, undefined, { scopes: ['read:user'] });
    expect((await apiCall(kiln.url, '/user', { token })).status).toBe(200);
    const created = await apiCall(kiln.url, '/user/repos', {
      method: 'POST',
      token,
      body: { name: 'never-made' },
    });
    expect(created.status).toBe(403);
    expect(created.body.message).toBe(scopeMessage('write:user write:repository'));
    const lookup = await apiCall(kiln.url, `/repos/${owner.handle}/never-made`);
    expect(lookup.status).toBe(404);
  });

  it('is still enough for the public version endpoint', async () => {
    const token = await kiln.make.token(owner, undefined, { scopes: ['read:issue'] });
    expect((await apiCall(kiln.url, '/version', { token })).status).toBe(200);
  });
});

describe('expiry', () => {
  it('refuses an expired token with 401 on REST and git, like an unknown one', async () => {
    const token = await kiln.make.token(owner, undefined, {
      expiresAt: new Date(Date.now() + 1500),
    });
    expect((await apiCall(kiln.url, '/user', { token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const answer = await apiCall(kiln.url, '/user', { token });
    expect(answer.status).toBe(401);
    const unknown = await apiCall(kiln.url, '/user', { token: 'f'.repeat(40) });
    expect(answer.body.message).toBe(unknown.body.message);
    const repo = await makeRepo(kiln, owner, `expiry-${Date.now()}`, { private: true });
    const refs = await fetch(
      `${kiln.url}/${owner.handle}/${repo.name}.git/info/refs?service=git-upload-pack`,
      { headers: { authorization: `token ${token}` } },
    );
    expect(refs.status).toBe(401);
  });

  it('cannot be made already expired', async () => {
    await expect(
      kiln.app.services.tokens.create(owner, 'past', { expiresAt: new Date(Date.now() - 1000) }),
    ).rejects.toThrow('token expiry must be in the future');
  });
});

describe('tokens made without scopes', () => {
  it('keep full access', async () => {
    const token = await kiln.make.token(owner);
    const created = await apiCall(kiln.url, '/user/repos', {
      method: 'POST',
      token,
      body: { name: `full-${Date.now()}` },
    });
    expect(created.status).toBe(201);
  });
});
