/**
 * What a task token may do follows its job's `permissions:`, generated over the lattice and
 * checked on every edge a job reaches (git push, REST reads and writes); a pull request from a
 * fork keeps a read-only token and no secrets whatever its workflow asks, through a workflow
 * call with `secrets: inherit` too; and a workflow of another repository is callable only when
 * anyone may read it or it has the caller's owner.
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

describe('calls to another repository', () => {
  it('reach public workflows and the same owner’s private ones, and nothing else', async () => {
    const { user: me, token } = await kiln.make.userWithToken();
    const { user: other, token: otherToken } = await kiln.make.userWithToken();
    const lib = `on: workflow_call\njobs:\n  shared:\n    runs-on: remote-box\n    steps: [{run: x}]\n`;
    const publish = async (user: typeof me, userToken: string, isPrivate: boolean) => {
      const { name } = await makeRepo(kiln, user, { private: isPrivate });
      const work = await git.init();
      await git.commit(work, { '.github/workflows/lib.yml': lib });
      const url = repoUrl(kiln.url, user.handle, name, { token: userToken, as: 'password' });
      await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: work });
      return `${user.handle}/${name}/.github/workflows/lib.yml@main`;
    };
    const mine = await publish(me, token, true);
    const theirsPublic = await publish(other, otherToken, false);
    const theirsPrivate = await publish(other, otherToken, true);
    const { name } = await makeRepo(kiln, me);
    const work = await git.init();
    const call = (uses: string) => `on: push\njobs:\n  lib:\n    uses: ${uses}\n`;
    await git.commit(work, {
      '.gitea/workflows/mine.yml': call(mine),
      '.gitea/workflows/public.yml': call(theirsPublic),
      '.gitea/workflows/private.yml': call(theirsPrivate),
      '.gitea/workflows/missing.yml': call(`${me.handle}/nothing/.gitea/workflows/x.yml@main`),
    });
    const url = repoUrl(kiln.url, me.handle, name, { token, as: 'password' });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: work });
    const repoId = await repoIdOf(me, name);
    const runs = () =>
      kiln.app.database.db
        .selectFrom('workflow_runs')
        .leftJoin('ci_tasks', 'ci_tasks.run_id', 'workflow_runs.id')
        .select(['workflow_runs.workflow_file', 'workflow_runs.error', 'ci_tasks.name'])
        .where('workflow_runs.repo_id', '=', repoId)
        .orderBy('workflow_runs.workflow_file')
        .execute();
    expect(await eventually(async () => (await runs()).length === 4)).toBe(true);
    expect(await runs()).toEqual([
      {
        workflow_file: 'mine.yml',
        error: null,
        name: 'lib / shared',
      },
      {
        workflow_file: 'missing.yml',
        error: `.gitea/workflows/missing.yml: called workflow ${me.handle}/nothing/.gitea/workflows/x.yml@main not found`,
        name: null,
      },
      {
        workflow_file: 'private.yml',
        // The same answer as for what does not exist: a call tells nobody what exists.
        error: `.gitea/workflows/private.yml: called workflow ${theirsPrivate} not found`,
        name: null,
      },
      { workflow_file: 'public.yml', error: null, name: 'lib / shared' },
    ]);
  }, 60_000);
});
