/**
 * Cancelling a run over REST (GitHub's and Gitea's `POST …/actions/runs/{run}/cancel`) while a
 * runner replaying act_runner's calls is in the middle of a step: 202, the runner learns it
 * from its next UpdateTask, and the job's page shows the step it was running as cancelled with
 * the lines it wrote, the steps after it as never run. A finished run is 409.
 */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
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
  build:
    runs-on: cancel-box
    steps:
      - {name: Compile, run: make}
      - {name: Ship, run: make ship}
`;

let kiln: TestServer;
let git: GitClient;

useWorld({ env: { SERVICE_PROTECT_ENABLED: 'false' } }, (world) => {
  ({ kiln, git } = world);
});

describe('cancelling a run through the API', () => {
  it('answers 202, stops the runner, and keeps the output of the step cut short', async () => {
    const runner = await ReplayRunner.register(kiln, { labels: ['cancel-box'] });
    const { owner, reader, name } = await pushedRepoWithReader(kiln, git, {
      '.gitea/workflows/ci.yml': WORKFLOW,
    });
    const runPath = `/repos/${owner.user.handle}/${name}/actions/runs/1`;
    const task = await runner.next();
    const { client, headers } = runner;
    const started = timestampFromDate(new Date());
    const compiling = [
      { id: 0n, result: Result.UNSPECIFIED, logIndex: 1n, logLength: 0n, startedAt: started },
      { id: 1n, result: Result.UNSPECIFIED, logIndex: 0n, logLength: 0n },
    ];
    const report = (result: Result) =>
      client.updateTask(
        { state: { id: task.id, result, startedAt: started, steps: compiling } },
        { headers },
      );
    const log = (index: number, lines: string[], noMore = false) =>
      client.updateLog(
        {
          taskId: task.id,
          index: BigInt(index),
          rows: lines.map((content) => ({ time: timestampFromDate(new Date()), content })),
          noMore,
        },
        { headers },
      );
    await report(Result.UNSPECIFIED);
    await log(0, ['set up', 'compiling a.c', 'compiling b.c']);

    expect(
      (await apiCall(kiln.url, `${runPath}/cancel`, { method: 'POST', token: reader.token }))
        .status,
    ).toBe(403);
    const cancelled = await apiCall(kiln.url, `${runPath}/cancel`, {
      method: 'POST',
      token: owner.token,
    });
    expect(cancelled.status).toBe(202);
    expect(cancelled.body).toEqual({});

    // The runner learns it from its next report, writes its last lines and reports the end, the
    // step it was running still without a result of its own.
    const answer = await report(Result.UNSPECIFIED);
    expect(answer.state?.result).toBe(Result.CANCELLED);
    await log(3, ['compiling c.c', 'the job was cancelled'], true);
    await report(Result.CANCELLED);

    const run = await apiCall(kiln.url, runPath, { token: owner.token });
    expect(run.body).toMatchObject({ status: 'completed', conclusion: 'cancelled' });
    const jobs = await apiCall(kiln.url, `${runPath}/jobs`, { token: owner.token });
    const job = (jobs.body as { jobs: { id: number; steps: unknown[] }[] }).jobs[0];
    expect(job?.steps).toMatchObject([
      { name: 'Compile', conclusion: 'cancelled' },
      { name: 'Ship', conclusion: 'skipped' },
    ]);

    const browser = await signedIn(kiln, owner.user.handle, owner.password);
    const body = await page(browser, `${runPath}/jobs/${job?.id}`);
    const compile = /<details[^>]*id="step-0"[^>]*>([\s\S]*?)<\/details>/.exec(body);
    expect(compile?.[0]).toContain('data-step-status="cancelled"');
    expect(compile?.[1]).toContain('compiling b.c');
    expect(compile?.[1]).toContain('compiling c.c');
    expect(compile?.[1]).not.toContain('No output');
    const ship = /<details[^>]*id="step-1"[^>]*>/.exec(body);
    expect(ship?.[0]).toContain('data-step-status="skipped"');

    // Finished now: a second cancel is a conflict, an unknown run is 404.
    const again = await apiCall(kiln.url, `${runPath}/cancel`, {
      method: 'POST',
      token: owner.token,
    });
    expect(again.status).toBe(409);
    const missing = await apiCall(
      kiln.url,
      `/repos/${owner.user.handle}/${name}/actions/runs/99/cancel`,
      { method: 'POST', token: owner.token },
    );
    expect(missing.status).toBe(404);
  });
});
