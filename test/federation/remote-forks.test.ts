import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { AP, apiCall, FediverseActor, startFederatedKiln } from './support.ts';

type Json = Record<string, unknown>;

/** A user of A forks a repository of B, B lists the fork, and A's fork follows B's commits. */
describe('forks across two Kiln instances', () => {
  let a: TestServer;
  let b: TestServer;
  let git: GitClient;
  let work: string;
  let author: { handle: string; token: string };
  let reader: { handle: string; token: string; password: string };
  let stranger: FediverseActor;

  const branchOnA = async (name: string, branch: string) =>
    (
      (await apiCall(a, reader.token, 'GET', `/repos/${reader.handle}/${name}/branches/${branch}`))
        .json.commit as Json | undefined
    )?.id;
  const pushToB = async (files: Record<string, string>) => {
    const sha = await git.commit(work, files, 'upstream change');
    const url = repoUrl(b.url, author.handle, 'tool', { token: author.token, as: 'username' });
    await git.ok(['push', '-q', url, 'HEAD:main'], { cwd: work });
    return sha;
  };

  beforeAll(async () => {
    [a, b] = await Promise.all([startFederatedKiln(), startFederatedKiln()]);
    git = await GitClient.create();
    const made = await b.make.userWithToken();
    author = { handle: made.user.handle, token: made.token };
    const madeA = await a.make.userWithToken();
    reader = { handle: madeA.user.handle, token: madeA.token, password: madeA.password };
    expect((await apiCall(b, author.token, 'POST', '/user/repos', { name: 'tool' })).status).toBe(
      201,
    );
    expect(
      (await apiCall(b, author.token, 'POST', '/user/repos', { name: 'secret', private: true }))
        .status,
    ).toBe(201);
    work = await git.init();
    await pushToB({ 'README.md': 'tool\n' });
    stranger = new FediverseActor();
    await stranger.start();
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), stranger?.stop()]);
    await git?.dispose();
  });

  it('forks a remote repository with its commits; the fork names its upstream', async () => {
    const upstream = `${b.url}/repos/${author.handle}/tool`;
    const forked = await apiCall(a, reader.token, 'POST', '/user/federation/forks', {
      actor: upstream,
    });
    expect(forked.status).toBe(201);
    expect(forked.json.full_name).toBe(`${reader.handle}/tool`);
    expect(forked.json.default_branch).toBe('main');
    const bMain = (
      await apiCall(b, author.token, 'GET', `/repos/${author.handle}/tool/branches/main`)
    ).json.commit as Json;
    expect(await branchOnA('tool', 'main')).toBe(bMain.id);

    const named = await apiCall(
      a,
      reader.token,
      'GET',
      `/repos/${reader.handle}/tool/federation/upstream`,
    );
    expect(named.json).toEqual({
      actor: upstream,
      clone_url: `${b.url}/${author.handle}/tool.git`,
    });
    const actor = (await (
      await fetch(`${a.url}/repos/${reader.handle}/tool`, { headers: { accept: AP } })
    ).json()) as Json;
    expect(actor.forkedFrom).toBe(upstream);
    const page = await (await fetch(`${a.url}/${reader.handle}/tool`)).text();
    const label = `${new URL(b.url).host}/${author.handle}/tool`;
    expect(page).toContain(`forked from <a href="${upstream}" rel="nofollow">${label}</a>`);
  });

  it('a second fork under a name already taken is 409; under another name it is made', async () => {
    const upstream = `${b.url}/repos/${author.handle}/tool`;
    const again = await apiCall(a, reader.token, 'POST', '/user/federation/forks', {
      actor: upstream,
    });
    expect(again.status).toBe(409);
    const other = await apiCall(a, reader.token, 'POST', '/user/federation/forks', {
      actor: upstream,
      name: 'tool-two',
    });
    expect(other.status).toBe(201);
    expect(other.json.full_name).toBe(`${reader.handle}/tool-two`);
  });

  it('the upstream learns of the fork and lists it', async () => {
    const path = `/repos/${author.handle}/tool/federation/forks`;
    const listed = await eventually(
      async () =>
        ((await apiCall(b, author.token, 'GET', path)).json as unknown as Json[]).length > 0,
    );
    expect(listed).toBe(true);
    const both = await eventually(
      async () =>
        ((await apiCall(b, author.token, 'GET', path)).json as unknown as Json[]).length === 2,
    );
    expect(both).toBe(true);
    expect((await apiCall(b, author.token, 'GET', path)).json).toEqual([
      { actor: `${a.url}/repos/${reader.handle}/tool`, owner: `${a.url}/${reader.handle}` },
      { actor: `${a.url}/repos/${reader.handle}/tool-two`, owner: `${a.url}/${reader.handle}` },
    ]);
    const ap = async (url: string) =>
      (await (await fetch(url, { headers: { accept: AP } })).json()) as Json;
    const upstream = await ap(`${b.url}/repos/${author.handle}/tool`);
    const collection = `${b.url}/federation/repos/${author.handle}/tool/forks`;
    expect(upstream.forks).toBe(collection);
    expect((await ap(collection)).totalItems).toBe(2);
    expect((await ap(`${collection}?page=1`)).orderedItems).toEqual([
      `${a.url}/repos/${reader.handle}/tool`,
      `${a.url}/repos/${reader.handle}/tool-two`,
    ]);
  });

  it('merge-upstream fast-forwards the fork to new upstream commits, once', async () => {
    const sha = await pushToB({ 'more.txt': 'more\n' });
    const path = `/repos/${reader.handle}/tool/merge-upstream`;
    const merged = await apiCall(a, reader.token, 'POST', path, { branch: 'main' });
    expect(merged).toEqual({ status: 200, json: { merge_type: 'fast-forward' } });
    expect(await branchOnA('tool', 'main')).toBe(sha);
    expect((await apiCall(a, reader.token, 'POST', path, { branch: 'main' })).json).toEqual({
      merge_type: '',
    });
  });

  it('merge-upstream moves no branch a protection bars its caller from pushing to (403)', async () => {
    const rules = `/repos/${reader.handle}/tool/branch_protections`;
    const rule = await apiCall(a, reader.token, 'POST', rules, {
      rule_name: 'ma*',
      enable_push: false,
    });
    expect(rule.status).toBe(201);
    const before = await branchOnA('tool', 'main');
    await pushToB({ 'barred.txt': 'barred\n' });
    const path = `/repos/${reader.handle}/tool/merge-upstream`;
    const refused = await apiCall(a, reader.token, 'POST', path, { branch: 'main' });
    expect(refused.status).toBe(403);
    expect(await branchOnA('tool', 'main')).toBe(before);
    expect((await apiCall(a, reader.token, 'DELETE', `${rules}/ma*`)).status).toBe(204);
  });

  it('"Sync fork" on the fork\'s page does the same for its writers only', async () => {
    const sha = await pushToB({ 'synced.txt': 'synced\n' });
    const page = `/repos/${reader.handle}/tool`;
    expect(await (await new Browser(a.url).get(page)).text()).not.toContain('Sync fork');
    const browser = new Browser(a.url);
    await browser.get('/login');
    await browser.post('/login', { login: reader.handle, password: reader.password });
    expect(await (await browser.get(page)).text()).toContain('Sync fork');
    const synced = await browser.post(`${page}/sync-fork`, {});
    expect(synced.status).toBe(303);
    expect(await branchOnA('tool', 'main')).toBe(sha);
  });

  it('a fork with commits of its own is not overwritten (409)', async () => {
    const clone = await git.clone(
      repoUrl(a.url, reader.handle, 'tool', { token: reader.token, as: 'username' }),
    );
    await git.commit(clone, { 'mine.txt': 'mine\n' }, 'fork change');
    await git.ok(['push', '-q', 'origin', 'HEAD:main'], { cwd: clone });
    const mine = await branchOnA('tool', 'main');
    await pushToB({ 'theirs.txt': 'theirs\n' });
    const path = `/repos/${reader.handle}/tool/merge-upstream`;
    expect((await apiCall(a, reader.token, 'POST', path, { branch: 'main' })).status).toBe(409);
    expect(await branchOnA('tool', 'main')).toBe(mine);
  });

  it('merge-upstream on a repository forked from nowhere else is 404; without a token 401', async () => {
    expect((await apiCall(a, reader.token, 'POST', '/user/repos', { name: 'own' })).status).toBe(
      201,
    );
    const path = `/repos/${reader.handle}/own/merge-upstream`;
    expect((await apiCall(a, reader.token, 'POST', path, { branch: 'main' })).status).toBe(404);
    const anonymous = await fetch(`${a.url}/api/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ branch: 'main' }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('what is not a public remote repository cannot be forked (422), and nothing is left', async () => {
    for (const actor of [
      `${b.url}/repos/${author.handle}/secret`,
      `${b.url}/repos/${author.handle}/missing`,
      `${b.url}/${author.handle}`,
      'not a name at all',
    ]) {
      const answer = await apiCall(a, reader.token, 'POST', '/user/federation/forks', {
        actor,
        name: 'attempt',
      });
      expect(answer.status, actor).toBe(422);
    }
    expect((await apiCall(a, reader.token, 'GET', `/repos/${reader.handle}/attempt`)).status).toBe(
      404,
    );
  });

  it('a Create from a server that does not host the fork lists nothing', async () => {
    const upstream = `${b.url}/repos/${author.handle}/tool`;
    const inbox = `${b.url}/federation/repos/${author.handle}/tool/inbox`;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          `${a.url}/repos/${reader.handle}/own`,
          `${stranger.id.replace('/actor', '')}/repos/x/y`,
          `${a.url}/repos/${reader.handle}/tool`,
        ),
        fc.constantFrom(upstream, `${b.url}/repos/${author.handle}/secret`),
        async (forkId, forkedFrom) => {
          const response = await stranger.send(inbox, {
            '@context': 'https://www.w3.org/ns/activitystreams',
            id: `${stranger.id}#create/${Math.random()}`,
            type: 'Create',
            actor: stranger.id,
            object: { id: forkId, type: 'Repository', forkedFrom },
          });
          expect(response.status).toBeLessThan(300);
        },
      ),
      { numRuns: 12 },
    );
    const listed = await apiCall(
      b,
      author.token,
      'GET',
      `/repos/${author.handle}/tool/federation/forks`,
    );
    expect((listed.json as unknown as Json[]).map((fork) => fork.actor)).toEqual([
      `${a.url}/repos/${reader.handle}/tool`,
      `${a.url}/repos/${reader.handle}/tool-two`,
    ]);
  });

  it('a fork made private is no longer listed by its upstream', async () => {
    const made = await apiCall(a, reader.token, 'PATCH', `/repos/${reader.handle}/tool`, {
      private: true,
    });
    expect(made.status).toBe(200);
    const path = `/repos/${author.handle}/tool/federation/forks`;
    const actors = async () =>
      ((await apiCall(b, author.token, 'GET', path)).json as unknown as Json[]).map((f) => f.actor);
    expect(await eventually(async () => (await actors()).length === 1)).toBe(true);
    expect(await actors()).toEqual([`${a.url}/repos/${reader.handle}/tool-two`]);
  });
});
