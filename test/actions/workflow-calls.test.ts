/**
 * Workflow calls as a runner receives them: a workflow of another repository is callable only
 * when anyone may read it or it has the caller's owner; a called job's document carries the
 * inputs it was handed in place of `${{ inputs.* }}`, for runners that fill `inputs` only for
 * their own events, and its context carries them in `github.event.inputs` and its own job id.
 */
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { payloadOf, ReplayRunner } from './replay-runner.ts';

let kiln: TestServer;
let git: GitClient;
useWorld({ env: { SERVICE_SECRET_KEY: 'workflow calls secret key' } }, async (world) => {
  ({ kiln, git } = world);
});

async function repoIdOf(owner: User, name: string): Promise<string> {
  return (await kiln.app.services.repos.get(owner, owner.handle, name)).repo.id;
}

/** A fresh user's repository with `files` pushed as `main`. */
async function pushedRepo(files: Record<string, string>): Promise<{ user: User; name: string }> {
  const { user, token } = await kiln.make.userWithToken();
  const { name } = await makeRepo(kiln, user);
  const work = await git.init();
  await git.commit(work, files);
  const url = repoUrl(kiln.url, user.handle, name, { token, as: 'password' });
  await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: work });
  return { user, name };
}

describe('a called job', () => {
  it('is handed its inputs in its document and its context', async () => {
    await pushedRepo({
      '.gitea/workflows/main.yml': `on: push
jobs:
  pre:
    runs-on: calls-box
    steps: [{run: a}]
  call:
    needs: pre
    uses: ./.gitea/workflows/lib.yml
    with: {target: "\${{ needs.pre.outputs.os }}", fast: true}
`,
      '.gitea/workflows/lib.yml': `on:
  workflow_call:
    inputs:
      target: {type: string}
      fast: {type: boolean}
jobs:
  inner:
    runs-on: calls-box
    steps:
      - run: echo "\${{ inputs.target }} \${{ inputs.fast }} \${{ github.sha }}"
`,
    });
    const runner = await ReplayRunner.register(kiln, { labels: ['calls-box'] });
    await runner.run(await runner.next(), { outputs: { os: 'plan9' } });
    const inner = await runner.next();
    const job = payloadOf(inner).jobs.inner as { steps: { run: string }[] };
    expect(job.steps[0]?.run).toBe(`echo "plan9 true \${{ github.sha }}"`);
    const context = inner.context as { job: string; event: { inputs: unknown } };
    expect(context.job).toBe('inner');
    expect(context.event.inputs).toEqual({ target: 'plan9', fast: true });
    await runner.run(inner);
  });
});

describe('a calling job whose if: is false', () => {
  it('leaves its called jobs and the jobs that need it skipped, and the rest runs', async () => {
    const { user, name } = await pushedRepo({
      '.gitea/workflows/main.yml': `on: push
jobs:
  call:
    if: github.ref == 'refs/heads/release'
    uses: ./.gitea/workflows/lib.yml
  after:
    needs: call
    runs-on: skip-box
    steps: [{run: a}]
  other:
    runs-on: skip-box
    steps: [{run: b}]
`,
      '.gitea/workflows/lib.yml':
        'on: workflow_call\njobs:\n  inner: {runs-on: skip-box, steps: [{run: c}]}\n',
    });
    const runner = await ReplayRunner.register(kiln, { labels: ['skip-box'] });
    const task = await runner.next();
    expect(Object.keys(payloadOf(task).jobs)).toEqual(['other']);
    await runner.run(task);
    const repoId = await repoIdOf(user, name);
    const jobs = () =>
      kiln.app.database.db
        .selectFrom('ci_tasks')
        .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
        .select(['ci_tasks.name', 'ci_tasks.status', 'workflow_runs.status as run'])
        .where('workflow_runs.repo_id', '=', repoId)
        .orderBy('ci_tasks.name')
        .execute();
    expect(await eventually(async () => (await jobs()).every((job) => job.run === 'SUCCESS'))).toBe(
      true,
    );
    expect((await jobs()).map((job) => [job.name, job.status])).toEqual([
      ['after', 'skipped'],
      ['call / inner', 'skipped'],
      ['other', 'success'],
    ]);
  });
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
