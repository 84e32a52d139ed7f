/**
 * Re-running finished workflow runs as a new attempt, through the REST API (GitHub's and Gitea's
 * paths) and the run page's form: failed jobs and the jobs that need them start over and a
 * runner client replaying act_runner's calls (replay-runner.ts) is handed them again; jobs that
 * passed keep their result; a run still going is refused with 409, a reader with 403.
 */
import { describe, expect, it } from 'vitest';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import type { GitClient } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { page, signedIn } from '../web/fixtures.ts';
import { pushedRepoWithReader } from './fixtures.ts';
import { ReplayRunner } from './replay-runner.ts';

const WORKFLOW = `on: push
jobs:
  lint:
    runs-on: rerun-box
    steps: [{run: make lint}]
  build:
    runs-on: rerun-box
    steps: [{run: make}]
  ship:
    needs: build
    runs-on: rerun-box
    steps: [{run: make ship}]
`;

let kiln: TestServer;
let git: GitClient;

useWorld({ env: { SERVICE_PROTECT_ENABLED: 'false' } }, (world) => {
  ({ kiln, git } = world);
});

describe('re-running a run', () => {
  it('starts failed jobs and their dependents over, over REST and from the run page', async () => {
    const runner = await ReplayRunner.register(kiln, { labels: ['rerun-box'] });
    const {
      owner: made,
      reader,
      name,
    } = await pushedRepoWithReader(kiln, git, {
      '.gitea/workflows/ci.yml': WORKFLOW,
    });
    const { user: owner, token, password } = made;
    const runPath = `/repos/${owner.handle}/${name}/actions/runs/1`;
    const jobs = async () =>
      (
        (await apiCall(kiln.url, `${runPath}/jobs`, { token })).body as {
          jobs: { id: number; name: string; conclusion: string | null; status: string }[];
        }
      ).jobs;

    const first = await runner.next();
    const early = await apiCall(kiln.url, `${runPath}/rerun`, { method: 'POST', token });
    expect(early.status).toBe(409);
    const taken = new Map<string, number>();
    const play = async (fail: string[]) => {
      for (let task = first; ; ) {
        const job = (task.context as { job: string }).job;
        taken.set(job, (taken.get(job) ?? 0) + 1);
        await runner.run(task, {
          steps: [{ lines: ['x'], result: fail.includes(job) ? Result.FAILURE : Result.SUCCESS }],
        });
        const next = await runner.poll();
        if (next === undefined) return;
        task = next;
      }
    };
    await play(['build']);
    expect(Object.fromEntries(taken)).toEqual({ lint: 1, build: 1 });
    expect((await jobs()).map((job) => [job.name, job.conclusion])).toEqual([
      ['lint', 'success'],
      ['build', 'failure'],
      ['ship', 'skipped'],
    ]);

    const refused = await apiCall(kiln.url, `${runPath}/rerun-failed-jobs`, {
      method: 'POST',
      token: reader.token,
    });
    expect(refused.status).toBe(403);
    const again = await apiCall(kiln.url, `${runPath}/rerun-failed-jobs`, {
      method: 'POST',
      token,
    });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: 1, status: 'queued', conclusion: null });
    expect((await jobs()).map((job) => [job.name, job.status])).toEqual([
      ['lint', 'completed'],
      ['build', 'queued'],
      ['ship', 'waiting'],
    ]);
    taken.clear();
    const retried = await runner.next();
    expect((retried.context as { job: string }).job).toBe('build');
    await runner.run(retried);
    const shipped = await runner.next();
    expect((shipped.context as { job: string }).job).toBe('ship');
    await runner.run(shipped);
    const done = await apiCall(kiln.url, runPath, { token });
    expect(done.body).toMatchObject({ status: 'completed', conclusion: 'success' });

    // The run page offers a re-run of every job to a writer.
    const browser = await signedIn(kiln, owner.handle, password);
    expect(await page(browser, runPath)).toContain('Re-run all jobs');
    const posted = await browser.post(`${runPath}/rerun`, {});
    expect(posted.status).toBe(303);
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      const task = await runner.next();
      names.push((task.context as { job: string }).job);
      await runner.run(task);
    }
    expect(names.sort()).toEqual(['build', 'lint', 'ship']);

    // One job without dependents: only it runs again.
    const lint = (await jobs()).find((job) => job.name === 'lint');
    const one = await apiCall(kiln.url, `${runPath}/jobs/${lint?.id}/rerun`, {
      method: 'POST',
      token,
    });
    expect(one.status).toBe(201);
    const alone = await runner.next();
    expect((alone.context as { job: string }).job).toBe('lint');
    expect(await runner.poll()).toBeUndefined();
    await runner.run(alone);
    const missing = await apiCall(kiln.url, `${runPath}/jobs/999999/rerun`, {
      method: 'POST',
      token,
    });
    expect(missing.status).toBe(404);
  });
});

const MATRIX = `on: push
jobs:
  build:
    runs-on: rerun-matrix
    strategy: {matrix: {leg: [alpha, omega]}}
    steps: [{run: make}]
  ship:
    needs: build
    if: always()
    runs-on: rerun-matrix
    steps: [{run: make ship}]
`;

describe('re-running the failed jobs of a run', () => {
  it('starts only the failed matrix leg (and what needs it) over, in the next run attempt', async () => {
    const runner = await ReplayRunner.register(kiln, { labels: ['rerun-matrix'] });
    const { owner, name } = await pushedRepoWithReader(kiln, git, {
      '.gitea/workflows/ci.yml': MATRIX,
    });
    const { token } = owner;
    const runPath = `/repos/${owner.user.handle}/${name}/actions/runs/1`;
    type Job = { id: number; name: string; conclusion: string | null; run_attempt: number };
    const jobs = async () =>
      ((await apiCall(kiln.url, `${runPath}/jobs`, { token })).body as { jobs: Job[] }).jobs;
    const nameOf = async (taskId: bigint) =>
      (await jobs()).find((job) => job.id === Number(taskId))?.name ?? '';
    const ranNames: string[] = [];
    // `github.run_attempt` as each job sees it.
    const attempts: string[] = [];
    const runAll = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const task = await runner.next();
        const jobName = await nameOf(task.id);
        ranNames.push(jobName);
        attempts.push((task.context as { run_attempt: string }).run_attempt);
        const fails = jobName.includes('omega');
        await runner.run(task, {
          steps: [{ lines: ['x'], result: fails ? Result.FAILURE : Result.SUCCESS }],
        });
      }
    };
    await runAll(3);
    expect((await jobs()).map((job) => job.conclusion).sort()).toEqual([
      'failure',
      'success',
      'success',
    ]);
    const first = await apiCall(kiln.url, runPath, { token });
    expect(first.body).toMatchObject({ run_attempt: 1, conclusion: 'failure' });

    for (const attempt of [2, 3]) {
      const again = await apiCall(kiln.url, `${runPath}/rerun-failed-jobs`, {
        method: 'POST',
        token,
      });
      expect(again.status).toBe(201);
      expect(again.body).toMatchObject({ run_attempt: attempt });
      ranNames.length = 0;
      attempts.length = 0;
      await runAll(2);
      expect(attempts).toEqual([String(attempt), String(attempt)]);
      expect(await runner.poll()).toBeUndefined();
      // The failed leg and the job that needs the matrix; the leg that passed is left alone.
      expect(ranNames.filter((job) => job.startsWith('build'))).toHaveLength(1);
      expect(ranNames.some((job) => job.startsWith('ship'))).toBe(true);
      const now = await jobs();
      const passedLeg = now.find((job) => job.name.includes('alpha'));
      const failedLeg = now.find((job) => job.name.includes('omega'));
      expect(passedLeg).toMatchObject({ run_attempt: 1, conclusion: 'success' });
      expect(failedLeg).toMatchObject({ run_attempt: attempt, conclusion: 'failure' });
      const run = await apiCall(kiln.url, runPath, { token });
      expect(run.body).toMatchObject({ run_attempt: attempt, status: 'completed' });
    }
  });
});
