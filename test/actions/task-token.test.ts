/**
 * The task token a runner receives (GITHUB_TOKEN / GITEA_TOKEN / github.token) acts as the
 * actions bot on its own repository while the task runs: it clones and pushes (a push that
 * starts no workflow run), and writes through the REST API (releases). It may do nothing on
 * another repository (404 private, 403 public), nothing on user endpoints, only read when the
 * run is for a pull request from a fork, and nothing at all once the task has ended.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { approveWaitingRuns, openForkPull } from './fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

let kiln: TestServer;
let git: GitClient;
let receiver: Receiver;
useWorld(
  { env: { SERVICE_WEBHOOK_ALLOWED_HOSTS: 'loopback', SERVICE_SECRET_KEY: 'task token hooks' } },
  async (world) => {
    ({ kiln, git } = world);
    receiver = await Receiver.start();
  },
);
afterAll(async () => {
  await receiver?.close();
});

/** The refs of a repository's workflow runs. */
async function runRefsOf(repoId: string): Promise<string[]> {
  const rows = await kiln.app.database.db
    .selectFrom('workflow_runs')
    .select('ref')
    .where('repo_id', '=', repoId)
    .execute();
  return rows.map((row) => row.ref);
}

const pushWorkflow = (label: string) =>
  `on: [push, pull_request]\njobs:\n  a:\n    runs-on: ${label}\n    steps: [{run: a}]\n`;

describe('the task token', () => {
  it('writes to its own repository as the actions bot, and to nothing else, then dies', async () => {
    const { user, token } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, user, { private: true });
    const { repo } = await kiln.app.services.repos.get(user, user.handle, name);
    const otherPrivate = await makeRepo(kiln, user, { private: true, autoInit: true });
    const otherPublic = await makeRepo(kiln, user, { autoInit: true });
    const dir = await git.init();
    await git.commit(dir, { '.gitea/workflows/ci.yml': pushWorkflow('token-box') });
    const ownerUrl = repoUrl(kiln.url, user.handle, name, { token, as: 'password' });
    await git.ok(['push', '-q', ownerUrl, 'HEAD:refs/heads/main'], { cwd: dir });
    const hook = await apiCall(kiln.url, `/repos/${user.handle}/${name}/hooks`, {
      method: 'POST',
      token,
      body: {
        type: 'gitea',
        config: { url: receiver.url, content_type: 'json' },
        events: ['push'],
        active: true,
      },
    });
    expect(hook.status).toBe(201);
    const runner = await ReplayRunner.register(kiln, { labels: ['token-box'] });
    const task = await runner.next();
    const taskToken = task.secrets.GITHUB_TOKEN ?? '';
    expect(taskToken).toMatch(/^[0-9a-f]{40}$/);
    const asTask = (repo: string) =>
      repoUrl(kiln.url, user.handle, repo, { token: taskToken, as: 'password' });

    // Its own repository: clone, push a tag and a branch, publish a release.
    const clone = await git.clone(asTask(name));
    expect(await git.ok(['log', '-1', '--format=%s'], { cwd: clone })).toBe('change');
    await git.commit(clone, { 'built.txt': 'built' });
    await git.ok(['tag', 'v1.0.0'], { cwd: clone });
    await git.ok(['push', '-q', asTask(name), 'HEAD:refs/heads/built', 'v1.0.0'], { cwd: clone });
    // Webhooks fire for the bot's push, naming it as the pusher.
    const [pushed] = await receiver.waitFor(
      (entry) =>
        entry.headers['x-gitea-event'] === 'push' && entry.body.includes('refs/heads/built'),
    );
    expect(JSON.parse(pushed?.body ?? '{}').pusher.login).toBe('kiln-actions');
    const release = await apiCall(kiln.url, `/repos/${user.handle}/${name}/releases`, {
      method: 'POST',
      token: taskToken,
      body: { tag_name: 'v1.0.0', name: 'Built by CI' },
    });
    expect(release.status).toBe(201);
    expect(release.body.author.login).toBe('kiln-actions');
    const pull = await apiCall(kiln.url, `/repos/${user.handle}/${name}/pulls`, {
      method: 'POST',
      token: taskToken,
      body: { head: 'built', base: 'main', title: 'Built output' },
    });
    expect(pull.status).toBe(201);
    expect(pull.body.user.login).toBe('kiln-actions');
    const sha = await git.ok(['rev-parse', 'HEAD'], { cwd: clone });
    const status = await apiCall(kiln.url, `/repos/${user.handle}/${name}/statuses/${sha}`, {
      method: 'POST',
      token: taskToken,
      body: { state: 'success', context: 'ci/bot' },
    });
    expect(status.status).toBe(201);
    const refs = await git.ok(['ls-remote', ownerUrl]);
    expect(refs).toContain('refs/tags/v1.0.0');
    expect(refs).toContain('refs/heads/built');

    // Its push to the default branch starts no run either, yet its crons are recorded.
    await git.commit(clone, {
      '.gitea/workflows/nightly.yml':
        "on:\n  schedule:\n    - cron: '30 4 * * *'\njobs:\n  n:\n    runs-on: token-box\n    steps: [{run: a}]\n",
    });
    await git.ok(['push', '-q', asTask(name), 'HEAD:refs/heads/main'], { cwd: clone });
    const crons = () =>
      kiln.app.database.db
        .selectFrom('ci_schedules')
        .select('crons')
        .where('repo_id', '=', repo.id)
        .execute();
    expect(await eventually(async () => (await crons()).length === 1)).toBe(true);

    // A protected branch holds against it as against any writer.
    await kiln.app.services.protectedBranches.create(user, user.handle, name, 'main');
    const deleting = await git.run(['push', asTask(name), ':refs/heads/main'], { cwd: clone });
    expect(deleting.code).not.toBe(0);
    expect(await git.ok(['ls-remote', ownerUrl, 'refs/heads/main'])).toContain('refs/heads/main');

    // Neither the bot's push nor its pull started a run; a person's push after them does.
    await git.ok(['push', '-q', ownerUrl, 'HEAD:refs/heads/after'], { cwd: clone });
    expect(
      await eventually(async () => (await runRefsOf(repo.id)).includes('refs/heads/after')),
    ).toBe(true);
    expect((await runRefsOf(repo.id)).sort()).toEqual(['refs/heads/after', 'refs/heads/main']);

    // Anything else: another private repository does not exist, a public one is read-only.
    expect((await git.run(['ls-remote', asTask(otherPrivate.name)])).code).not.toBe(0);
    const pushElsewhere = await git.run(
      ['push', '-q', asTask(otherPublic.name), 'HEAD:refs/heads/x'],
      {
        cwd: clone,
      },
    );
    expect(pushElsewhere.code).not.toBe(0);
    expect(pushElsewhere.stderr).toMatch(/returned error: 403\b/);
    const releaseOn = (repo: string) =>
      apiCall(kiln.url, `/repos/${user.handle}/${repo}/releases`, {
        method: 'POST',
        token: taskToken,
        body: { tag_name: 'v9', target_commitish: 'main', name: 'not mine' },
      });
    expect((await releaseOn(otherPrivate.name)).status).toBe(404);
    expect((await releaseOn(otherPublic.name)).status).toBe(403);
    expect((await apiCall(kiln.url, '/user', { token: taskToken })).status).toBe(403);
    const newRepo = await apiCall(kiln.url, `/repos/${user.handle}/${otherPublic.name}/forks`, {
      method: 'POST',
      token: taskToken,
      body: {},
    });
    expect(newRepo.status).toBe(403);

    await runner.run(task, { steps: [{ lines: ['done'], result: Result.SUCCESS }] });
    const after = await git.run(['ls-remote', asTask(name)]);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toMatch(/Authentication failed|returned error: 401\b|could not read/i);
    const late = await apiCall(kiln.url, `/repos/${user.handle}/${name}/releases`, {
      method: 'POST',
      token: taskToken,
      body: { tag_name: 'v1.0.0', name: 'too late' },
    });
    expect(late.status).toBe(401);
  });

  it('only reads when the run is for a pull request from a fork', async () => {
    const { user: owner, token } = await kiln.make.userWithToken();
    const { user: forker, token: forkerToken } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, owner);
    const dir = await git.init();
    await git.commit(dir, {
      '.gitea/workflows/pr.yml':
        'on: pull_request\njobs:\n  a:\n    runs-on: fork-box\n    steps: [{run: a}]\n',
    });
    const ownerUrl = repoUrl(kiln.url, owner.handle, name, { token, as: 'password' });
    await git.ok(['push', '-q', ownerUrl, 'HEAD:refs/heads/main'], { cwd: dir });
    await openForkPull(
      kiln,
      git,
      { owner: owner.handle, name, dir },
      { user: forker, token: forkerToken },
    );
    const runner = await ReplayRunner.register(kiln, { labels: ['fork-box'] });
    expect(
      await eventually(
        async () => (await approveWaitingRuns(kiln, { owner: owner.handle, name }, token)) > 0,
      ),
    ).toBe(true);
    const task = await runner.next();
    const taskToken = task.secrets.GITHUB_TOKEN ?? '';
    const asTask = repoUrl(kiln.url, owner.handle, name, { token: taskToken, as: 'password' });

    const clone = await git.clone(asTask);
    await git.commit(clone, { 'c.txt': 'c' });
    const push = await git.run(['push', '-q', asTask, 'HEAD:refs/heads/from-fork'], {
      cwd: clone,
    });
    expect(push.code).not.toBe(0);
    expect(push.stderr).toMatch(/returned error: 403\b/);
    const release = await apiCall(kiln.url, `/repos/${owner.handle}/${name}/releases`, {
      method: 'POST',
      token: taskToken,
      body: { tag_name: 'v1', target_commitish: 'main', name: 'from a fork' },
    });
    expect(release.status).toBe(403);
    await runner.run(task);
  });
});
