/**
 * `on: pull_request` runs: opening a pull and pushing to its branch start runs of the base
 * repository's workflows on `refs/pull/N/head`, with base-branch and path filters; a pull from a
 * fork gets no secrets besides the task token (and, its author unable to write, runs once the
 * owner approves it), while a pull inside the repository gets them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { openForkPull } from './fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

let kiln: TestServer;
let git: GitClient;

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_SECRET_KEY: 'test secret key for CI secrets' });
  git = await GitClient.create();
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

const WORKFLOW = `on:
  pull_request:
    branches: [main]
jobs:
  check:
    runs-on: pull-box
    steps: [{run: make check}]
`;

async function runsOf(repoId: string) {
  return kiln.app.database.db
    .selectFrom('workflow_runs')
    .selectAll()
    .where('repo_id', '=', repoId)
    .orderBy('number')
    .execute();
}

describe('pull request runs', () => {
  it('run on open and synchronize; a fork gets only the task token, a branch gets secrets', async () => {
    const { user: owner, token } = await kiln.make.userWithToken();
    const { user: forker, token: forkerToken } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, owner);
    const { repo } = await kiln.app.services.repos.get(owner, owner.handle, name);
    await kiln.app.services.ciSecrets.put(
      { repoId: repo.id, isRepoAdmin: true },
      'DEPLOY_KEY',
      's3cret',
    );
    const dir = await git.init();
    await git.commit(dir, { '.gitea/workflows/pr.yml': WORKFLOW });
    const originUrl = repoUrl(kiln.url, owner.handle, name, { token, as: 'password' });
    await git.ok(['push', '-q', originUrl, 'HEAD:refs/heads/main'], { cwd: dir });
    const runner = await ReplayRunner.register(kiln, { labels: ['pull-box'] });

    // A pull inside the repository.
    await git.commit(dir, { 'a.txt': 'a' });
    await git.ok(['push', '-q', originUrl, 'HEAD:refs/heads/feature'], { cwd: dir });
    const inside = await kiln.app.services.pulls.create(owner, owner.handle, name, {
      title: 'Inside',
      head: 'feature',
      base: 'main',
    });
    expect(await eventually(async () => (await runsOf(repo.id)).length === 1)).toBe(true);
    const [run] = await runsOf(repo.id);
    expect(run).toMatchObject({
      event: 'pull_request',
      ref: `refs/pull/${inside.pull.number}/head`,
      head_ref: 'feature',
      base_ref: 'main',
    });
    const insideTask = await runner.next();
    expect(insideTask.secrets.DEPLOY_KEY).toBe('s3cret');
    expect((insideTask.context as Record<string, unknown>).event_name).toBe('pull_request');
    await runner.run(insideTask);

    // A pull from a fork.
    const { forkUrl } = await openForkPull(
      kiln,
      git,
      { owner: owner.handle, name, dir },
      { user: forker, token: forkerToken },
    );
    expect(await eventually(async () => (await runsOf(repo.id)).length === 2)).toBe(true);
    // The forker cannot write to the base: the run waits for the owner's approval.
    expect(await runner.poll()).toBeUndefined();
    const forkRun = (await runsOf(repo.id))[1];
    const approved = await apiCall(
      kiln.url,
      `/repos/${owner.handle}/${name}/actions/runs/${forkRun?.number}/approve`,
      { method: 'POST', token },
    );
    expect(approved.status).toBe(200);
    const forkTask = await runner.next();
    expect(Object.keys(forkTask.secrets).sort()).toEqual(['GITEA_TOKEN', 'GITHUB_TOKEN']);
    await runner.run(forkTask);

    // Pushing to the fork's branch synchronises the pull: another run.
    await git.commit(dir, { 'b.txt': 'again' });
    await git.ok(['push', '-q', forkUrl, 'HEAD:refs/heads/patch'], { cwd: dir });
    expect(await eventually(async () => (await runsOf(repo.id)).length === 3)).toBe(true);
    const again = await runner.next();
    expect(Object.keys(again.secrets).sort()).toEqual(['GITEA_TOKEN', 'GITHUB_TOKEN']);
    expect((again.context as { event: { action: string } }).event.action).toBe('synchronize');
  });

  it('does not run for a pull into a branch the filter leaves out', async () => {
    const { user: owner, token } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, owner);
    const { repo } = await kiln.app.services.repos.get(owner, owner.handle, name);
    const dir = await git.init();
    await git.commit(dir, { '.gitea/workflows/pr.yml': WORKFLOW });
    const url = repoUrl(kiln.url, owner.handle, name, { token, as: 'password' });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main', 'HEAD:refs/heads/develop'], {
      cwd: dir,
    });
    await git.commit(dir, { 'c.txt': 'c' });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/topic'], { cwd: dir });
    await kiln.app.services.pulls.create(owner, owner.handle, name, {
      title: 'Into develop',
      head: 'topic',
      base: 'develop',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await runsOf(repo.id)).toEqual([]);
  });

  it('runs on reopened by default and on closed when the workflow names it, through the API', async () => {
    const { user: owner, token } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, owner);
    const dir = await git.init();
    await git.commit(dir, {
      '.gitea/workflows/default.yml': WORKFLOW,
      '.gitea/workflows/closing.yml': `on:
  pull_request:
    types: [closed]
jobs:
  tidy:
    runs-on: pull-box
    steps: [{run: make tidy}]
`,
    });
    const url = repoUrl(kiln.url, owner.handle, name, { token, as: 'password' });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
    await git.commit(dir, { 'd.txt': 'd' });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/lifecycle'], { cwd: dir });
    const runsPath = `/repos/${owner.handle}/${name}/actions/runs`;
    const runs = async () =>
      (
        (await apiCall(kiln.url, runsPath, { token })).body as {
          workflow_runs: { event: string; path: string; display_title: string }[];
        }
      ).workflow_runs;
    const runner = await ReplayRunner.register(kiln, { labels: ['pull-box'] });
    const action = async () => {
      const task = await runner.next();
      await runner.run(task);
      return (task.context as { event: { action: string } }).event.action;
    };

    const opened = await apiCall(kiln.url, `/repos/${owner.handle}/${name}/pulls`, {
      method: 'POST',
      token,
      body: { title: 'Lifecycle', head: 'lifecycle', base: 'main' },
    });
    expect(opened.status).toBe(201);
    const pullPath = `/repos/${owner.handle}/${name}/pulls/${opened.body.number}`;
    expect(await eventually(async () => (await runs()).length === 1)).toBe(true);
    expect(await action()).toBe('opened');

    const closed = await apiCall(kiln.url, pullPath, {
      method: 'PATCH',
      token,
      body: { state: 'closed' },
    });
    expect(closed.status).toBe(201);
    expect(await eventually(async () => (await runs()).length === 2)).toBe(true);
    expect((await runs())[0]).toMatchObject({ event: 'pull_request' });
    expect((await runs())[0]?.path).toContain('closing.yml');
    expect(await action()).toBe('closed');

    const reopened = await apiCall(kiln.url, pullPath, {
      method: 'PATCH',
      token,
      body: { state: 'open' },
    });
    expect(reopened.status).toBe(201);
    expect(await eventually(async () => (await runs()).length === 3)).toBe(true);
    expect((await runs())[0]?.path).toContain('default.yml');
    expect(await action()).toBe('reopened');

    const merged = await apiCall(kiln.url, `${pullPath}/merge`, {
      method: 'POST',
      token,
      body: { Do: 'merge' },
    });
    expect(merged.status).toBe(200);
    expect(await eventually(async () => (await runs()).length === 4)).toBe(true);
    expect((await runs())[0]?.path).toContain('closing.yml');
    const closing = await runner.next();
    const event = (closing.context as { event: { action: string; pull_request: unknown } }).event;
    expect(event.action).toBe('closed');
    expect(event.pull_request).toMatchObject({ merged: true, state: 'closed' });
  });
});
