/**
 * The REST view of CI, as Gitea 1.24+ and GitHub serve it: runs of a repository with their
 * status and conclusion, one run, its jobs with steps, and a job's log as plain text; private
 * repositories are 404 to outsiders here as everywhere.
 */
import { describe, expect, it } from 'vitest';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { payloadOf, ReplayRunner } from './replay-runner.ts';

let kiln: TestServer;
let git: GitClient;
useWorld({}, (world) => {
  ({ kiln, git } = world);
});

describe('GET /repos/{owner}/{repo}/actions/…', () => {
  it('lists runs, shows one, its jobs with steps and a job log; 404 for outsiders', async () => {
    const { user, token } = await kiln.make.userWithToken();
    const { token: outsider } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, user, { private: true });
    const dir = await git.init();
    const sha = await git.commit(
      dir,
      {
        '.gitea/workflows/ci.yml':
          'on: push\njobs:\n  unit:\n    runs-on: api-box\n    steps:\n      - name: Compile\n        run: make\n      - run: make test\n',
      },
      'Run the tests',
    );
    await git.ok(
      [
        'push',
        '-q',
        repoUrl(kiln.url, user.handle, name, { token, as: 'password' }),
        'HEAD:refs/heads/main',
      ],
      { cwd: dir },
    );
    const api = (path: string, as = token) =>
      fetch(`${kiln.url}/api/v1/repos/${user.handle}/${name}/actions/${path}`, {
        headers: { authorization: `token ${as}` },
      });
    expect(
      await eventually(
        async () =>
          ((await (await api('runs')).json()) as { total_count: number }).total_count === 1,
      ),
    ).toBe(true);
    let listed = (await (await api('runs')).json()) as { workflow_runs: Record<string, unknown>[] };
    expect(listed.workflow_runs[0]).toMatchObject({
      id: 1,
      run_number: 1,
      head_sha: sha,
      head_branch: 'main',
      event: 'push',
      display_title: 'Run the tests',
      status: 'queued',
      conclusion: null,
    });

    const runner = await ReplayRunner.register(kiln, { labels: ['api-box'] });
    const task = await runner.next();
    await runner.run(task, {
      steps: [{ lines: ['cc main.c'] }, { lines: ['1 test failed'], result: Result.FAILURE }],
    });

    listed = (await (await api('runs')).json()) as { workflow_runs: Record<string, unknown>[] };
    expect(listed.workflow_runs[0]).toMatchObject({ status: 'completed', conclusion: 'failure' });
    const run = (await (await api('runs/1')).json()) as Record<string, unknown>;
    expect(run).toMatchObject({ id: 1, status: 'completed', conclusion: 'failure' });
    expect((await api('runs/2')).status).toBe(404);

    const jobs = (await (await api('runs/1/jobs')).json()) as {
      total_count: number;
      jobs: { id: number; name: string; labels: string[]; conclusion: string; steps: unknown[] }[];
    };
    expect(jobs.total_count).toBe(1);
    expect(jobs.jobs[0]).toMatchObject({
      id: Number(task.id),
      name: 'unit',
      labels: ['api-box'],
      status: 'completed',
      conclusion: 'failure',
    });
    expect(jobs.jobs[0]?.steps).toMatchObject([
      { name: 'Compile', number: 1, status: 'completed', conclusion: 'success' },
      { name: 'make test', number: 2, status: 'completed', conclusion: 'failure' },
    ]);

    const log = await api(`jobs/${task.id}/logs`);
    expect(log.status).toBe(200);
    expect(log.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await log.text();
    expect(text).toMatch(/^\S+ cc main\.c\n\S+ 1 test failed\n/);

    expect((await api('runs', outsider)).status).toBe(404);
    expect((await api(`jobs/${task.id}/logs`, outsider)).status).toBe(404);
  });

  it('starts a workflow_dispatch run with its inputs for writers only (readers 403)', async () => {
    const { user, token } = await kiln.make.userWithToken();
    const { token: outsider } = await kiln.make.userWithToken();
    const { name } = await makeRepo(kiln, user);
    const dir = await git.init();
    await git.commit(dir, {
      '.gitea/workflows/deploy.yml': `on:
  workflow_dispatch:
    inputs:
      target: {required: true}
      level: {default: info}
jobs:
  deploy:
    name: deploy to \${{ inputs.target }}
    runs-on: dispatch-box
    steps: [{run: deploy}]
`,
    });
    await git.ok(
      [
        'push',
        '-q',
        repoUrl(kiln.url, user.handle, name, { token, as: 'password' }),
        'HEAD:refs/heads/main',
      ],
      { cwd: dir },
    );
    const dispatch = (body: unknown, as = token) =>
      fetch(
        `${kiln.url}/api/v1/repos/${user.handle}/${name}/actions/workflows/deploy.yml/dispatches`,
        {
          method: 'POST',
          headers: { authorization: `token ${as}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
      );
    expect((await dispatch({ ref: 'main', inputs: { target: 'prod' } }, outsider)).status).toBe(
      403,
    );
    expect((await dispatch({ ref: 'main' })).status).toBe(422);
    expect((await dispatch({ ref: 'main', inputs: { target: 'prod' } })).status).toBe(204);
    const runner = await ReplayRunner.register(kiln, { labels: ['dispatch-box'] });
    const task = await runner.next();
    const context = task.context as {
      event_name: string;
      event: { inputs: Record<string, string> };
    };
    expect(context.event_name).toBe('workflow_dispatch');
    expect(context.event.inputs).toEqual({ target: 'prod', level: 'info' });
    expect(String(payloadOf(task).jobs.deploy?.name)).toBe('deploy to prod');
  });
});
