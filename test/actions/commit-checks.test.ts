/**
 * Commit checks on pages: the history page, a commit's page and a pull's commits show each
 * commit's CI status (passed, failed, still running) as an icon linking to the run that decided
 * it, for commits whose runs a real runner client (replay-runner.ts) took; commits without runs
 * show none. The runners page shows what each runner is running, linked to the job. Plain HTTP,
 * no JavaScript needed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import { makeRepo } from '../git/fixtures.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { page, signedIn } from '../web/fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

const WORKFLOW = `on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps: [{name: Build, run: make}]
`;

let kiln: TestServer;
let git: GitClient;

beforeAll(async () => {
  kiln = await startTestServer({
    SERVICE_PROTECT_ENABLED: 'false',
    SERVICE_ADMIN_HANDLES: 'runner-admin',
  });
  git = await GitClient.create();
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

/** The check link shown for `sha` in a page: its status and the run it points at. */
function checkOf(body: string, base: string, sha: string) {
  const row = body.split('<li').find((item) => item.includes(`/commit/${sha}`));
  const found = row?.match(
    new RegExp(`href="${base}/actions/runs/(\\d+)"[^>]*>\\s*<span[^>]*data-status="([a-z]+)"`),
  );
  return found ? { run: Number(found[1]), status: found[2] } : undefined;
}

describe('commit checks on pages', () => {
  it('show passed, failed and running commits with a link to their run', async () => {
    const { user: owner, token } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, owner);
    const base = `/repos/${owner.handle}/${name}`;
    const url = repoUrl(kiln.url, owner.handle, name, { token, as: 'password' });
    const runner = await ReplayRunner.register(kiln);
    const dir = await git.init();
    const quiet = await git.commit(dir, { 'README.md': 'no CI yet' }, 'Before CI');
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });

    const failed = await git.commit(dir, { '.gitea/workflows/ci.yml': WORKFLOW }, 'Add CI');
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
    await runner.run(await runner.next(), {
      steps: [{ lines: ['boom'], result: Result.FAILURE }],
    });
    const passed = await git.commit(dir, { 'a.txt': 'fixed' }, 'Fix the build');
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
    await runner.run(await runner.next(), { steps: [{ lines: ['ok'] }] });
    const running = await git.commit(dir, { 'b.txt': 'more' }, 'More work');
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
    await runner.next();

    const visitor = new Browser(kiln.url);
    const history = await page(visitor, `${base}/commits/main`);
    expect(checkOf(history, base, failed)).toEqual({ run: 1, status: 'failure' });
    expect(checkOf(history, base, passed)).toEqual({ run: 2, status: 'success' });
    expect(checkOf(history, base, running)).toEqual({ run: 3, status: 'running' });
    expect(checkOf(history, base, quiet)).toBeUndefined();

    const commit = await page(visitor, `${base}/commit/${failed}`);
    expect(commit).toMatch(
      new RegExp(`href="${base}/actions/runs/1"[^>]*>\\s*<span[^>]*data-status="failure"`),
    );
    expect(await page(visitor, `${base}/commit/${quiet}`)).not.toContain('/actions/runs/');
  });

  it('show the check of a pull request head among the pull commits', async () => {
    const { user: owner, token } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, owner);
    const base = `/repos/${owner.handle}/${name}`;
    const url = repoUrl(kiln.url, owner.handle, name, { token, as: 'password' });
    const runner = await ReplayRunner.register(kiln, { labels: ['pull-box'] });
    const dir = await git.init();
    await git.commit(dir, {
      '.gitea/workflows/pr.yml':
        'on: pull_request\njobs:\n  check:\n    runs-on: pull-box\n    steps: [{run: make check}]\n',
    });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
    const head = await git.commit(dir, { 'c.txt': 'c' }, 'Change');
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/topic'], { cwd: dir });
    const { pull } = await kiln.app.services.pulls.create(owner, owner.handle, name, {
      title: 'Topic',
      head: 'topic',
      base: 'main',
    });
    await runner.run(await runner.next(), { steps: [{ lines: ['ok'] }] });

    const commits = await page(new Browser(kiln.url), `${base}/pulls/${pull.number}/commits`);
    expect(checkOf(commits, base, head)).toEqual({ run: 1, status: 'success' });
  });
});

describe('runner pages', () => {
  it('show the job a runner is running, linked to it, and none once it is done', async () => {
    const admin = await kiln.make.user({ handle: 'runner-admin' });
    const browser = await signedIn(kiln, admin.user.handle, admin.password);
    const { user: owner, token } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, owner);
    const runner = await ReplayRunner.register(kiln, { labels: ['task-box'] });
    const dir = await git.init();
    await git.commit(dir, {
      '.gitea/workflows/ci.yml':
        'on: push\njobs:\n  compile:\n    runs-on: task-box\n    steps: [{run: make}]\n',
    });
    const url = repoUrl(kiln.url, owner.handle, name, { token, as: 'password' });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
    const task = await runner.next();

    const row = (body: string) =>
      body
        .split('<tr>')
        .find((item) => item.includes(runner.headers['x-runner-uuid'] ?? 'missing')) ?? '';
    const busy = row(await page(browser, '/admin/runners'));
    expect(busy).toContain(
      `href="/repos/${owner.handle}/${name}/actions/runs/1/jobs/${task.id}">compile</a>`,
    );
    await runner.run(task);
    const idle = row(await page(browser, '/admin/runners'));
    expect(idle).not.toContain('/actions/runs/');
    expect(idle).toContain('none');
  });
});
