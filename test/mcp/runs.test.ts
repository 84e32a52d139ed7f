/**
 * Workflow runs, jobs and logs through the `kiln mcp` subprocess: runs and jobs equal to REST's
 * but for null URLs, the bounded tail of a job's log, re-running the failed jobs and cancelling,
 * with REST's permissions (a reader may look but not re-run or cancel; an outsider of a private
 * repository finds nothing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import { ReplayRunner } from '../actions/replay-runner.ts';
import { auth, type Json, json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { callTool, commitTo, connectMcp, type McpSession, withNullUrls } from './support.ts';

const WORKFLOW = `on: workflow_dispatch
jobs:
  lint:
    runs-on: mcp-box
    steps: [{run: make lint}]
  test:
    runs-on: mcp-box
    steps: [{run: make test}]
`;

let kiln: TestServer;
let alice: User;
let aliceToken: string;
let bobToken: string;
let carolToken: string;
let mcp: McpSession;
let runner: ReplayRunner;
const repo = { owner: '', repo: 'ci' };

async function rest(path: string): Promise<Json> {
  const response = await fetch(`${kiln.url}/api/v1${path}`, { headers: auth.token(aliceToken) });
  return json(response);
}

/** Runs every job handed out: `test` fails after printing `lines`, the others pass. */
async function runJobs(count: number, lines: string[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    const task = await runner.next();
    const failing = (task.context as { job: string }).job === 'test';
    const printed = failing
      ? [...lines, '::error file=src/sum.ts,line=7::expected 2, got 3']
      : ['ok'];
    await runner.run(task, {
      steps: [{ lines: printed, result: failing ? Result.FAILURE : Result.SUCCESS }],
    });
  }
}

beforeAll(async () => {
  kiln = await startTestServer();
  ({ user: alice, token: aliceToken } = await kiln.make.userWithToken());
  const bob = await kiln.make.userWithToken();
  bobToken = bob.token;
  ({ token: carolToken } = await kiln.make.userWithToken());
  const { services } = kiln.app;
  await services.repos.create(alice, { name: 'ci', autoInit: true, private: true });
  await services.collaborators.put(alice, alice.handle, 'ci', bob.user.handle, 'read');
  repo.owner = alice.handle;
  await commitTo(kiln, alice.handle, 'ci', 'main', { '.gitea/workflows/ci.yml': WORKFLOW });
  runner = await ReplayRunner.register(kiln, { labels: ['mcp-box'] });
  await services.ciTriggers.dispatch(alice, alice.handle, 'ci', {
    workflowFile: 'ci.yml',
    ref: 'main',
    inputs: {},
  });
  const lines = Array.from({ length: 300 }, (_, i) => `test line ${i + 1}`);
  await runJobs(2, [...lines, 'x'.repeat(10_000), 'FAIL: expected 2, got 3']);
  mcp = await connectMcp(kiln, { token: aliceToken });
});
afterAll(async () => {
  await mcp?.close();
  await kiln?.close();
});

describe('workflow runs over MCP', () => {
  it('lists runs and shows a run with its jobs as REST does, URLs aside', async () => {
    const listed = await callTool(mcp, 'list_workflow_runs', repo);
    expect(listed.isError).toBe(false);
    const fromRest = await rest(`/repos/${alice.handle}/ci/actions/runs`);
    expect(listed.structured).toMatchObject({ total: 1, next_page: null });
    expect(listed.structured.items).toEqual(withNullUrls(fromRest.workflow_runs, kiln.url));
    const run = await callTool(mcp, 'get_workflow_run', { ...repo, run: 1 });
    expect(run.structured).toMatchObject({ id: 1, conclusion: 'failure', url: null });
    const jobs = await rest(`/repos/${alice.handle}/ci/actions/runs/1/jobs`);
    expect(run.structured.jobs).toEqual(withNullUrls(jobs.jobs, kiln.url));
    expect(run.structured.annotations).toEqual([
      expect.objectContaining({
        job_name: 'test',
        annotation_level: 'failure',
        message: 'expected 2, got 3',
        path: 'src/sum.ts',
        start_line: 7,
        end_line: 7,
      }),
    ]);
  });

  it("reads the bounded tail of a job's log", async () => {
    const run = await callTool(mcp, 'get_workflow_run', { ...repo, run: 1 });
    const failed = (run.structured.jobs as { id: number; name: string }[]).find(
      (job) => job.name === 'test',
    );
    const tail = await callTool(mcp, 'get_job_log_tail', { ...repo, job: failed?.id, lines: 5 });
    expect(tail.isError).toBe(false);
    const lines = tail.structured.lines as string[];
    // The runner's last row is an empty one, sent with the end of the log.
    expect(lines).toHaveLength(5);
    expect(lines[3]).toBe('::error file=src/sum.ts,line=7::expected 2, got 3');
    expect(lines[4]).toBe('');
    expect(lines[0]).toBe('test line 300');
    expect(lines[1]?.length).toBeLessThan(2100);
    expect(lines[1]).toContain('(line cut)');
    expect(lines[2]).toBe('FAIL: expected 2, got 3');
    expect(tail.structured.total_lines).toBeGreaterThanOrEqual(302);
    const many = await callTool(mcp, 'get_job_log_tail', {
      ...repo,
      job: failed?.id,
      lines: 1_000_000,
    });
    expect((many.structured.lines as string[]).length).toBeLessThanOrEqual(1000);
    const missing = await callTool(mcp, 'get_job_log_tail', { ...repo, job: 999_999 });
    expect(missing.isError).toBe(true);
  });

  it('re-runs the failed jobs and cancels, for writers only', async () => {
    const asBob = await connectMcp(kiln, { token: bobToken });
    const asCarol = await connectMcp(kiln, { token: carolToken });
    try {
      expect((await callTool(asBob, 'get_workflow_run', { ...repo, run: 1 })).isError).toBe(false);
      const refused = await callTool(asBob, 'rerun_workflow_run', {
        ...repo,
        run: 1,
        failed_only: true,
      });
      expect(refused.isError).toBe(true);
      const hidden = await callTool(asCarol, 'get_workflow_run', { ...repo, run: 1 });
      expect(hidden.isError).toBe(true);
      expect(hidden.text).toContain('not exist');
      expect((await callTool(asCarol, 'cancel_workflow_run', { ...repo, run: 1 })).text).toContain(
        'not exist',
      );
    } finally {
      await asBob.close();
      await asCarol.close();
    }

    const rerun = await callTool(mcp, 'rerun_workflow_run', { ...repo, run: 1, failed_only: true });
    expect(rerun.isError).toBe(false);
    expect(rerun.structured).toMatchObject({ run_attempt: 2, status: 'queued' });
    const states = (rerun.structured.jobs as { name: string; status: string }[]).map((job) => [
      job.name,
      job.status,
    ]);
    expect(states).toEqual([
      ['lint', 'completed'],
      ['test', 'queued'],
    ]);
    const cancelled = await callTool(mcp, 'cancel_workflow_run', { ...repo, run: 1 });
    expect(cancelled.isError).toBe(false);
    expect(cancelled.structured).toMatchObject({ status: 'completed', conclusion: 'cancelled' });
    const again = await callTool(mcp, 'cancel_workflow_run', { ...repo, run: 1 });
    expect(again.isError).toBe(true);
    expect(again.text).toContain('already completed');
    expect(await runner.poll()).toBeUndefined();
  });
});
