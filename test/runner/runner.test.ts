/**
 * The real `kiln runner` process against a protocol-faithful fake server (fake-server.ts): what
 * a server observes from registration to the final report of each task.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import { MAIN, runCli } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';
import { FakeRunnerServer, REGISTRATION_TOKEN, type TaskRecord } from './fake-server.ts';

let dir: string;
let server: FakeRunnerServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kiln-runner-'));
  server = new FakeRunnerServer();
  await server.listen();
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

type Daemon = { child: ChildProcess; stderr: () => string; exit: Promise<number | null> };

function daemon(file: string, extra: string[] = []): Daemon {
  const child = spawn(
    process.execPath,
    [
      MAIN,
      'runner',
      'daemon',
      '--file',
      file,
      '--workdir',
      join(dir, 'work'),
      '--isolation',
      'none',
      ...extra,
    ],
    {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stderr: () => stderr, exit };
}

async function registered(name: string, extra: string[] = []): Promise<string> {
  const file = join(dir, `${name}.runner`);
  const result = await runCli([
    'runner',
    'register',
    '--instance',
    server.url,
    '--token',
    REGISTRATION_TOKEN,
    '--name',
    name,
    '--file',
    file,
    ...extra,
  ]);
  expect(result.code, result.stderr).toBe(0);
  return file;
}

async function finished(before: number): Promise<TaskRecord> {
  await eventually(
    async () =>
      [...server.tasks.values()]
        .slice(before)
        .some((t) => t.result !== Result.UNSPECIFIED && t.sealed),
    45_000,
  );
  const task = [...server.tasks.values()][before];
  if (!task) throw new Error('no task was taken');
  return task;
}

describe('kiln runner', () => {
  it('registers as act_runner does and keeps the registration private', async () => {
    const file = await registered('alpha', ['--labels', 'self-hosted,ubuntu-latest:host']);
    const request = server.registrations.at(-1);
    expect(server.pings.at(-1)).toBe('alpha');
    expect(request?.labels).toEqual(['self-hosted', 'ubuntu-latest']);
    expect(request?.capabilities).toEqual(['cancelling']);
    expect(request?.version).toMatch(/^v\d/);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved).toMatchObject({
      name: 'alpha',
      address: server.url,
      labels: ['self-hosted', 'ubuntu-latest:host'],
      ephemeral: false,
    });
    expect(server.runners.get(saved.uuid)?.token).toBe(saved.token);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const refused = await runCli([
      'runner',
      'register',
      '--instance',
      server.url,
      '--token',
      'wrong',
      '--file',
      join(dir, 'x'),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('runner registration token not found');
  });

  it('runs tasks and reports logs, steps, outputs, masks, groups and summaries', async () => {
    const file = await registered('bravo');
    server.failLogCalls = 1;
    const before = server.tasks.size;
    server.enqueue({
      secrets: { DEPLOY_KEY: 'super-secret-value' },
      workflow: `
jobs:
  build:
    outputs:
      answer: \${{ steps.calc.outputs.answer }}
    steps:
      - id: calc
        run: |
          echo "::group::Compute"
          echo "key=\${{ secrets.DEPLOY_KEY }}"
          echo "::add-mask::masked-later"
          echo "value masked-later"
          echo "answer=42" >> "$GITHUB_OUTPUT"
          echo "::endgroup::"
          echo "# Report" >> "$GITHUB_STEP_SUMMARY"
      - run: exit 4
        continue-on-error: true
      - run: echo "repo=$GITHUB_REPOSITORY sha=$GITHUB_SHA"
`,
    });
    const d = daemon(file);
    try {
      const task = await finished(before);
      expect(task.result).toBe(Result.SUCCESS);
      expect(Object.fromEntries(task.outputs)).toEqual({ answer: '42' });
      const log = task.rows.join('\n');
      expect(log).toContain('::group::Compute');
      expect(log).toContain('key=***');
      expect(log).toContain('value ***');
      expect(log).not.toMatch(/super-secret-value|masked-later/);
      expect(log).toContain('::group::Step summary\n# Report\n::endgroup::');
      expect(log).toContain(`repo=alice/demo sha=${'f'.repeat(40)}`);
      expect(task.steps.map((s) => s.result)).toEqual([
        Result.SUCCESS,
        Result.SUCCESS,
        Result.SUCCESS,
      ]);
      // Step ranges tile the rows they cover, in order, and the first rows went through a resend.
      const [first, second, third] = task.steps;
      expect(
        task.rows.slice(
          Number(first?.logIndex),
          Number((first?.logIndex ?? 0n) + (first?.logLength ?? 0n)),
        ),
      ).toContain('key=***');
      expect(Number(second?.logIndex)).toBe(
        Number((first?.logIndex ?? 0n) + (first?.logLength ?? 0n)),
      );
      expect(task.rows[Number(third?.logIndex)]).toContain('repo=alice/demo');
      expect(server.declarations.at(-1)?.labels).toEqual([
        'self-hosted',
        'linux',
        process.arch,
        'kiln',
      ]);
      // tasks_version: starts at 0, then the server's; back to 0 right after a task.
      expect(server.fetches[0]?.tasksVersion).toBe(0n);

      const timeoutBefore = server.tasks.size;
      server.enqueue({
        workflow:
          'jobs:\n  slow:\n    steps:\n      - run: sleep 30\n        timeout-minutes: 0.02\n      - run: echo after\n',
      });
      const timedOut = await finished(timeoutBefore);
      expect(timedOut.result).toBe(Result.FAILURE);
      expect(timedOut.steps.map((s) => s.result)).toEqual([Result.FAILURE, Result.SKIPPED]);
      expect(timedOut.rows.join('\n')).toContain('timeout');
      // Once idle again it polls with the version the server last answered (the first poll
      // after a task carries 0, as act_runner's does; the next ones the server's version).
      expect(
        await eventually(
          async () => server.fetches.some((fetch) => fetch.tasksVersion > 0n),
          15_000,
        ),
      ).toBe(true);
    } finally {
      d.child.kill('SIGTERM');
      expect(await d.exit).toBe(0);
    }
  });

  it('obeys a cancel answer mid-step and still sends its final report', async () => {
    const file = await registered('charlie');
    const before = server.tasks.size;
    server.enqueue({
      workflow:
        'jobs:\n  long:\n    steps:\n      - run: echo started && sleep 60\n      - if: always()\n        run: echo cleanup\n',
    });
    const d = daemon(file);
    try {
      await eventually(
        async () => [...server.tasks.values()][before]?.rows.includes('started') ?? false,
        30_000,
      );
      const task = [...server.tasks.values()][before] as TaskRecord;
      const asked = Date.now();
      task.cancelRequested = true;
      const done = await finished(before);
      expect(Date.now() - asked).toBeLessThan(15_000);
      expect(done.result).toBe(Result.CANCELLED);
      expect(done.steps[0]?.result).toBe(Result.CANCELLED);
      expect(done.rows).toContain('cleanup');
    } finally {
      d.child.kill('SIGTERM');
      await d.exit;
    }
  });

  it('on SIGTERM stops polling, and cancels what outlives the grace period', async () => {
    const file = await registered('delta');
    const before = server.tasks.size;
    server.enqueue({
      workflow: 'jobs:\n  long:\n    steps:\n      - run: echo working && sleep 60\n',
    });
    const d = daemon(file, ['--grace', '1']);
    await eventually(
      async () => [...server.tasks.values()][before]?.rows.includes('working') ?? false,
      30_000,
    );
    d.child.kill('SIGTERM');
    expect(await d.exit).toBe(0);
    const task = [...server.tasks.values()][before] as TaskRecord;
    expect(task.result).toBe(Result.CANCELLED);
    expect(task.sealed).toBe(true);
    expect(d.stderr()).toContain('cancelling running tasks');
  });

  it('with --once takes one task, runs it and exits 0, leaving the next task queued', async () => {
    const file = await registered('foxtrot');
    const before = server.tasks.size;
    server.enqueue({ workflow: 'jobs:\n  one:\n    steps:\n      - run: echo first\n' });
    server.enqueue({ workflow: 'jobs:\n  two:\n    steps:\n      - run: echo second\n' });
    const d = daemon(file, ['--once']);
    expect(await d.exit).toBe(0);
    const tasks = [...server.tasks.values()].slice(before);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]?.result).toBe(Result.SUCCESS);
    expect(tasks[0]?.rows).toContain('first');
    // The second task is still there for the next runner.
    const other = daemon(file, ['--once']);
    expect(await other.exit).toBe(0);
    expect([...server.tasks.values()].slice(before)[1]?.rows).toContain('second');
  });

  it('with --once fails when it cannot reach the server', async () => {
    const file = await registered('golf');
    const state = JSON.parse(await readFile(file, 'utf8')) as { address: string };
    await writeFile(file, JSON.stringify({ ...state, address: 'http://127.0.0.1:9' }));
    const d = daemon(file, ['--once']);
    expect(await d.exit).toBe(1);
  });

  it('exits with a clear line once the server no longer knows it', async () => {
    const file = await registered('echo');
    const d = daemon(file);
    await eventually(
      async () => server.declarations.length > 0 && d.stderr().includes('declared'),
      20_000,
    );
    server.revokeAll();
    expect(await d.exit).toBe(1);
    expect(d.stderr()).toContain('runner is no longer registered');
  });
});
