/**
 * What a task token may do follows its job's `permissions:`, generated over the lattice and
 * checked on every edge a job reaches (git push, REST reads and writes); a pull request from a
 * fork keeps a read-only token and no secrets whatever its workflow asks, through a workflow
 * call with `secrets: inherit` too; and the run's actor bounds the token while it runs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { approveWaitingRuns, openForkPull } from './fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

let kiln: TestServer;
let git: GitClient;
useWorld({ env: { SERVICE_SECRET_KEY: 'task permissions' } }, async (world) => {
  ({ kiln, git } = world);
});

const SCOPES = ['contents', 'issues', 'pull-requests', 'statuses', 'actions'] as const;
type Level = 'none' | 'read' | 'write';

async function repoIdOf(owner: User, name: string): Promise<string> {
  return (await kiln.app.services.repos.get(owner, owner.handle, name)).repo.id;
}

describe('job permissions', () => {
  it('hold the task token to what they grant, on git and the API (generated)', async () => {
    const { user, token } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, user, { private: true });
    const dir = await git.init();
    const url = repoUrl(kiln.url, user.handle, name, { token, as: 'password' });
    const runner = await ReplayRunner.register(kiln, { labels: ['perm-box'] });
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom<unknown>('read-all', 'write-all', {}),
          fc.dictionary(
            fc.constantFrom(...SCOPES),
            fc.constantFrom<Level>('none', 'read', 'write'),
          ),
        ),
        async (permissions) => {
          round++;
          const workflow = `on: push\njobs:\n  a:\n    runs-on: perm-box\n    permissions: ${JSON.stringify(permissions)}\n    steps: [{run: a}]\n`;
          await git.commit(dir, { '.gitea/workflows/p.yml': workflow, 'n.txt': String(round) });
          await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
          const task = await runner.next();
          const taskToken = task.secrets.GITHUB_TOKEN ?? '';
          const level = (scope: (typeof SCOPES)[number]): Level =>
            typeof permissions === 'string'
              ? permissions === 'read-all'
                ? 'read'
                : 'write'
              : ((permissions as Record<string, Level>)[scope] ?? 'none');
          const any = SCOPES.some((scope) => level(scope) !== 'none');
          const asTask = repoUrl(kiln.url, user.handle, name, { token: taskToken, as: 'password' });
          const push = await git.run(['push', '-q', asTask, `HEAD:refs/heads/t-${round}`], {
            cwd: dir,
          });
          expect(push.code === 0, `${JSON.stringify(permissions)}: ${push.stderr}`).toBe(
            level('contents') === 'write',
          );
          const repo = await apiCall(kiln.url, `/repos/${user.handle}/${name}`, {
            token: taskToken,
          });
          expect(repo.status === 200, JSON.stringify(permissions)).toBe(any);
          const labels = await apiCall(kiln.url, `/repos/${user.handle}/${name}/labels`, {
            token: taskToken,
          });
          const issueLevel = level('issues') !== 'none' || level('pull-requests') !== 'none';
          expect(labels.status === 200, JSON.stringify(permissions)).toBe(any && issueLevel);
          const release = await apiCall(kiln.url, `/repos/${user.handle}/${name}/releases`, {
            method: 'POST',
            token: taskToken,
            body: { tag_name: `v${round}`, target_commitish: 'main', name: `r${round}` },
          });
          expect(release.status === 201, JSON.stringify(permissions)).toBe(
            level('contents') === 'write',
          );
          await runner.run(task);
        },
      ),
      { numRuns: 10 },
    );
  }, 120_000);

  it("keep a fork's token read-only and its jobs without secrets, whatever the workflow asks", async () => {
    const { user: owner, token } = await kiln.make.userWithToken();
    const forker = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, owner);
    const repoId = await repoIdOf(owner, name);
    await kiln.app.services.ciSecrets.put({ repoId, isRepoAdmin: true }, 'DEPLOY_KEY', 'x-secret');
    const dir = await git.init();
    await git.commit(dir, {
      '.gitea/workflows/pr.yml': `on: pull_request
permissions: write-all
jobs:
  a:
    runs-on: fork-perm
    permissions: {contents: write, issues: write}
    steps: [{run: a}]
  b:
    uses: ./.gitea/workflows/lib.yml
    secrets: inherit
`,
      '.gitea/workflows/lib.yml': `on: workflow_call
jobs:
  c:
    runs-on: fork-perm
    permissions: write-all
    steps: [{run: c}]
`,
    });
    const ownerUrl = repoUrl(kiln.url, owner.handle, name, { token, as: 'password' });
    await git.ok(['push', '-q', ownerUrl, 'HEAD:refs/heads/main'], { cwd: dir });
    await openForkPull(kiln, git, { owner: owner.handle, name, dir }, forker);
    const runner = await ReplayRunner.register(kiln, { labels: ['fork-perm'] });
    expect(
      await eventually(
        async () => (await approveWaitingRuns(kiln, { owner: owner.handle, name }, token)) > 0,
      ),
    ).toBe(true);
    for (let job = 0; job < 2; job++) {
      const task = await runner.next();
      expect(Object.keys(task.secrets).sort()).toEqual(['GITEA_TOKEN', 'GITHUB_TOKEN']);
      const taskToken = task.secrets.GITHUB_TOKEN ?? '';
      const asTask = repoUrl(kiln.url, owner.handle, name, { token: taskToken, as: 'password' });
      const push = await git.run(['push', '-q', asTask, `HEAD:refs/heads/from-fork-${job}`], {
        cwd: dir,
      });
      expect(push.code).not.toBe(0);
      const release = await apiCall(kiln.url, `/repos/${owner.handle}/${name}/releases`, {
        method: 'POST',
        token: taskToken,
        body: { tag_name: `f${job}`, target_commitish: 'main', name: 'from a fork' },
      });
      expect(release.status).toBe(403);
      const read = await apiCall(kiln.url, `/repos/${owner.handle}/${name}/labels`, {
        token: taskToken,
      });
      expect(read.status).toBe(200);
      await runner.run(task);
    }
  }, 60_000);
});

describe("the run's actor", () => {
  it('bounds the token: a writer made a reader while the job runs takes its pushes along', async () => {
    const { user: owner } = await kiln.make.userWithToken();
    const writer = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, owner, { private: true });
    const { collaborators } = kiln.app.services;
    await collaborators.put(owner, owner.handle, name, writer.user.handle, 'write');
    const dir = await git.init();
    await git.commit(dir, {
      '.gitea/workflows/w.yml':
        'on: push\njobs:\n  a:\n    runs-on: actor-box\n    steps: [{run: a}]\n',
    });
    const url = repoUrl(kiln.url, owner.handle, name, { token: writer.token, as: 'password' });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: dir });
    const runner = await ReplayRunner.register(kiln, { labels: ['actor-box'] });
    const task = await runner.next();
    const asTask = repoUrl(kiln.url, owner.handle, name, {
      token: task.secrets.GITHUB_TOKEN ?? '',
      as: 'password',
    });
    const pushAs = (branch: string) =>
      git.run(['push', '-q', asTask, `HEAD:refs/heads/${branch}`], { cwd: dir });
    expect((await pushAs('while-writer')).code).toBe(0);
    await collaborators.put(owner, owner.handle, name, writer.user.handle, 'read');
    const refused = await pushAs('after-read');
    expect(refused.code).not.toBe(0);
    expect((await git.run(['ls-remote', asTask], { cwd: dir })).code).toBe(0);
    await collaborators.remove(owner, owner.handle, name, writer.user.handle);
    expect((await git.run(['ls-remote', asTask], { cwd: dir })).code).not.toBe(0);
    await runner.run(task);
  }, 60_000);
});
