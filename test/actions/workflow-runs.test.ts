/**
 * Workflow execution end to end: a real push over smart HTTP starts runs, and a runner client
 * replaying act_runner's call sequence (replay-runner.ts) takes the jobs, reports steps, logs
 * and outputs, and learns of cancellation from UpdateTask answers. Covers needs with outputs,
 * a matrix, branch and path filters, a cancelled run, a zombie task, a malformed workflow and
 * the log acknowledgement rules. Runs on SQLite, and on PostgreSQL under with-postgres.sh.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduleService } from '../../src/domain/ci/schedule.service.ts';
import { ScheduleStore } from '../../src/domain/ci/schedule.store.ts';
import { Result } from '../../src/gen/runner/v1/messages_pb.js';
import { makeRepo } from '../git/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { payloadOf, ReplayRunner } from './replay-runner.ts';

let kiln: TestServer;
let git: GitClient;
let token: string;
let owner: Awaited<ReturnType<TestServer['make']['userWithToken']>>['user'];

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_SECRET_KEY: 'test secret key for CI secrets' });
  git = await GitClient.create();
  ({ user: owner, token } = await kiln.make.userWithToken());
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

/** A repository with a work tree pushing to it; `push` commits files and pushes a branch. */
async function project() {
  const { name } = await makeRepo(kiln, owner);
  const dir = await git.init();
  const url = repoUrl(kiln.url, owner.handle, name, { token, as: 'password' });
  const repoId = (
    await kiln.app.database.db
      .selectFrom('repositories')
      .select('id')
      .where('name', '=', name)
      .where('owner_id', '=', owner.id)
      .executeTakeFirstOrThrow()
  ).id;
  return {
    name,
    repoId,
    async push(files: Record<string, string>, branch = 'main', message = 'change') {
      await git.ok(['checkout', '-q', '-B', branch], { cwd: dir });
      const sha = await git.commit(dir, files, message);
      await git.ok(['push', '-q', url, `HEAD:refs/heads/${branch}`], { cwd: dir });
      return sha;
    },
    runs() {
      return kiln.app.database.db
        .selectFrom('workflow_runs')
        .selectAll()
        .where('repo_id', '=', repoId)
        .orderBy('number')
        .execute();
    },
  };
}

async function runsSettle(p: Awaited<ReturnType<typeof project>>, count: number) {
  await eventually(async () => (await p.runs()).length >= count, 10_000);
  return p.runs();
}

const TWO_JOBS = `name: Build and ship
on:
  push:
    branches: [main]
jobs:
  build:
    runs-on: ubuntu-latest
    outputs:
      artifact: \${{ steps.pack.outputs.artifact }}
    steps:
      - run: make
      - id: pack
        run: echo artifact=app.tgz >> $GITHUB_OUTPUT
  ship:
    needs: build
    runs-on: ubuntu-latest
    steps:
      - run: ship \${{ needs.build.outputs.artifact }}
`;

describe('a push with a two-job workflow', () => {
  it('hands out build, then ship with build outputs and result, and completes the run', async () => {
    const p = await project();
    const runner = await ReplayRunner.register(kiln, { labels: ['ubuntu-latest', 'other'] });
    const sha = await p.push({ '.gitea/workflows/ci.yml': TWO_JOBS }, 'main', 'Add CI\n\nbody');
    const [run] = await runsSettle(p, 1);
    expect(run).toMatchObject({ sha, ref: 'refs/heads/main', event: 'push', title: 'Add CI' });
    expect(run?.workflow_name).toBe('Build and ship');

    const build = await runner.next();
    expect(runner.versionsSeen.every((version) => version > 0n)).toBe(true);
    const payload = payloadOf(build);
    expect(Object.keys(payload.jobs)).toEqual(['build']);
    const context = build.context as Record<string, unknown>;
    expect(context).toMatchObject({
      event_name: 'push',
      sha,
      ref: 'refs/heads/main',
      ref_name: 'main',
      ref_type: 'branch',
      repository: `${owner.handle}/${p.name}`,
      repository_owner: owner.handle,
      actor: owner.handle,
      server_url: kiln.url,
      api_url: `${kiln.url}/api/v1`,
      job: 'build',
      run_number: '1',
      run_attempt: '1',
      gitea_default_actions_url: `${kiln.url}/-/actions`,
      forgejo_default_actions_url: `${kiln.url}/-/actions`,
    });
    expect((context.event as { after?: string }).after).toBe(sha);
    expect(build.secrets.GITHUB_TOKEN).toMatch(/^[0-9a-f]{40}$/);
    expect(build.secrets.GITEA_TOKEN).toBe(build.secrets.GITHUB_TOKEN);
    expect(context.token).toBe(build.secrets.GITHUB_TOKEN);
    // ship is blocked until build ends: nothing else to hand out.
    expect(await runner.poll()).toBeUndefined();

    const outcome = await runner.run(build, {
      steps: [{ lines: ['make: ok'] }, { lines: ['packed'] }],
      outputs: { artifact: 'app.tgz' },
    });
    expect(outcome).toMatchObject({ cancelled: false, result: Result.SUCCESS });
    expect(outcome.sentOutputs).toEqual(['artifact']);

    const ship = await runner.next();
    expect(Object.keys(payloadOf(ship).jobs)).toEqual(['ship']);
    expect(payloadOf(ship).jobs.ship?.needs).toBeUndefined();
    expect(ship.needs.build?.result).toBe(Result.SUCCESS);
    expect(ship.needs.build?.outputs).toEqual({ artifact: 'app.tgz' });
    await runner.run(ship);
    const [done] = await p.runs();
    expect(done?.status).toBe('SUCCESS');
  });

  it('answers the current version without a task when nothing changed, never 0', async () => {
    const runner = await ReplayRunner.register(kiln, { labels: ['nothing-matches'] });
    const first = await runner.client.fetchTask({ tasksVersion: 0n }, { headers: runner.headers });
    expect(first.tasksVersion).toBeGreaterThan(0n);
    const again = await runner.client.fetchTask(
      { tasksVersion: first.tasksVersion },
      { headers: runner.headers },
    );
    expect(again.task).toBeUndefined();
    expect(again.tasksVersion).toBe(first.tasksVersion);
  });
});

describe('matrix and filters', () => {
  it('splits a matrix of four into four named jobs with their runs-on', async () => {
    const p = await project();
    const runner = await ReplayRunner.register(kiln, { labels: ['linux', 'mac'] });
    await p.push({
      '.github/workflows/matrix.yaml': `on: push
jobs:
  test:
    strategy:
      matrix:
        node: [18, 20]
        os: [linux, mac]
    runs-on: \${{ matrix.os }}
    steps:
      - run: node\${{ matrix.node }} test
`,
    });
    await runsSettle(p, 1);
    const names: string[] = [];
    for (let i = 0; i < 4; i++) {
      const task = await runner.next();
      const job = payloadOf(task).jobs.test;
      names.push(String(job?.name));
      expect(job?.['runs-on']).toBe(String(job?.name).includes('mac') ? 'mac' : 'linux');
      await runner.run(task);
    }
    expect(names.sort()).toEqual([
      'test (18, linux)',
      'test (18, mac)',
      'test (20, linux)',
      'test (20, mac)',
    ]);
    expect((await p.runs())[0]?.status).toBe('SUCCESS');
  });

  it('starts runs only for matching branches and changed paths', async () => {
    const p = await project();
    const workflow = `on:
  push:
    branches: [main, 'release/**']
    paths: ['src/**', '!src/**/*.md']
jobs:
  a:
    runs-on: filter-box
    steps: [{run: x}]
`;
    await p.push({ '.gitea/workflows/w.yml': workflow, 'src/app.ts': '1' });
    expect(await runsSettle(p, 1)).toHaveLength(1);
    await p.push({ 'docs/readme.md': 'only docs' });
    await p.push({ 'src/notes.md': 'ignored by !' });
    await p.push({ 'src/app.ts': '2' }, 'feature');
    await p.push({ 'src/app.ts': '3' }, 'release/v1/hotfix');
    const runs = await runsSettle(p, 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await p.runs()).map((run) => run.ref)).toEqual([
      'refs/heads/main',
      'refs/heads/release/v1/hotfix',
    ]);
    expect(runs.length).toBeGreaterThanOrEqual(2);
  });

  it('records a workflow that does not parse as a failed run naming the line', async () => {
    const p = await project();
    await p.push({ '.gitea/workflows/bad.yml': 'on: push\njobs:\n  a:\n    steps: []\n' });
    const [run] = await runsSettle(p, 1);
    expect(run?.status).toBe('FAILURE');
    expect(run?.error).toMatch(/bad\.yml: line 3: job "a" has no "runs-on"/);
  });
});

describe('schedules', () => {
  it('starts a scheduled run once per matching minute, whichever replica ticks', async () => {
    const p = await project();
    await p.push({
      '.gitea/workflows/nightly.yml':
        "on:\n  schedule:\n    - cron: '30 4 * * *'\njobs:\n  n:\n    runs-on: night-box\n    steps: [{run: a}]\n",
    });
    const { ciSchedules } = kiln.app.services;
    const recorded = () =>
      kiln.app.database.db
        .selectFrom('ci_schedules')
        .select('crons')
        .where('repo_id', '=', p.repoId)
        .execute();
    expect(await eventually(async () => (await recorded()).length === 1)).toBe(true);
    const other = new ScheduleService({
      store: new ScheduleStore(kiln.app.database.db),
      start: (repoId, file) => kiln.app.services.ciTriggers.onSchedule(repoId, file),
    });
    const at = Date.parse('2031-01-01T04:30:10Z');
    expect(await ciSchedules.tick(Date.parse('2031-01-01T04:29:59Z'))).toBe(0);
    const started = [await ciSchedules.tick(at), await other.tick(at + 5000)];
    expect(started).toEqual([1, 0]);
    const runs = await p.runs();
    expect(runs.map((run) => [run.event, run.ref])).toEqual([['schedule', 'refs/heads/main']]);
  });
});

describe('stopping tasks', () => {
  it('a cancelled run stops its runner through the UpdateTask answer', async () => {
    const p = await project();
    const runner = await ReplayRunner.register(kiln, { labels: ['cancel-box'] });
    await p.push({
      '.gitea/workflows/long.yml':
        'on: push\njobs:\n  long:\n    runs-on: cancel-box\n    steps: [{run: a}, {run: b}, {run: c}]\n',
    });
    const [run] = await runsSettle(p, 1);
    const task = await runner.next();
    const outcome = await runner.run(task, {
      steps: [{ lines: ['one'] }, { lines: ['two'] }, { lines: ['three'] }],
      between: async (step) => {
        if (step === 0) await kiln.app.services.ciRuns.cancelRun(run?.id ?? '');
      },
    });
    expect(outcome.cancelled).toBe(true);
    expect(outcome.result).toBe(Result.CANCELLED);
    expect((await p.runs())[0]?.status).toBe('CANCELLED');
    // Its token died with the cancel.
    const row = await kiln.app.database.db
      .selectFrom('ci_tasks')
      .select(['status', 'token_hash'])
      .where('id', '=', Number(task.id))
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'cancelled', token_hash: null });
  });

  it('a new push cancels the unfinished run of the same workflow and ref', async () => {
    const p = await project();
    const workflow = 'on: push\njobs:\n  a:\n    runs-on: nobody-has-this\n    steps: [{run: a}]\n';
    await p.push({ '.gitea/workflows/w.yml': workflow });
    await runsSettle(p, 1);
    await p.push({ 'x.txt': 'again' });
    await runsSettle(p, 2);
    expect((await p.runs()).map((run) => run.status)).toEqual(['CANCELLED', 'PENDING']);
  });

  it('the sweep fails a task whose runner went silent, and the runner learns it', async () => {
    const p = await project();
    const runner = await ReplayRunner.register(kiln, { labels: ['zombie-box'] });
    await p.push({
      '.gitea/workflows/z.yml':
        'on: push\njobs:\n  z:\n    runs-on: zombie-box\n    steps: [{run: a}]\n',
    });
    await runsSettle(p, 1);
    const task = await runner.next();
    // Eleven minutes without an UpdateTask, as the sweep sees it.
    await kiln.app.services.ciTasks.sweepZombies(Date.now() + 11 * 60_000);
    const answer = await runner.client.updateTask(
      { state: { id: task.id, result: Result.UNSPECIFIED } },
      { headers: runner.headers },
    );
    expect(answer.state?.result).toBe(Result.FAILURE);
    expect((await p.runs())[0]?.status).toBe('FAILURE');
  });
});

describe('after the task', () => {
  it('removes an ephemeral runner once its cancelled task has reported', async () => {
    const p = await project();
    const runner = await ReplayRunner.register(kiln, { labels: ['once-box'], ephemeral: true });
    await p.push({
      '.gitea/workflows/e.yml':
        'on: push\njobs:\n  e:\n    runs-on: once-box\n    steps: [{run: a}, {run: b}]\n',
    });
    const [run] = await runsSettle(p, 1);
    const task = await runner.next();
    const outcome = await runner.run(task, {
      steps: [{ lines: ['a'] }, { lines: ['b'] }],
      between: () => kiln.app.services.ciRuns.cancelRun(run?.id ?? ''),
    });
    expect(outcome.cancelled).toBe(true);
    const error = await runner.poll().catch((caught: unknown) => caught);
    expect((error as ConnectError).code).toBe(Code.Unauthenticated);
  });

  it('deletes logs past the retention', async () => {
    const p = await project();
    const runner = await ReplayRunner.register(kiln, { labels: ['retained-box'] });
    await p.push({
      '.gitea/workflows/r.yml':
        'on: push\njobs:\n  r:\n    runs-on: retained-box\n    steps: [{run: a}]\n',
    });
    await runsSettle(p, 1);
    const task = await runner.next();
    await runner.run(task, { steps: [{ lines: ['kept for now'] }] });
    const { ciLogs, ciReports } = kiln.app.services;
    expect(await ciLogs.readRows(Number(task.id), 0, 10)).not.toEqual([]);
    await ciReports.expireLogs(Date.now() + 89 * 86_400_000);
    expect(await ciLogs.readRows(Number(task.id), 0, 10)).not.toEqual([]);
    await ciReports.expireLogs(Date.now() + 91 * 86_400_000);
    expect(await ciLogs.readRows(Number(task.id), 0, 10)).toEqual([]);
  });
});

describe('UpdateLog acknowledgements', () => {
  it('appends from the acknowledged row, ignores gaps and repeats, seals once even when empty', async () => {
    const p = await project();
    const runner = await ReplayRunner.register(kiln, { labels: ['log-box'] });
    await kiln.app.services.ciSecrets.put(
      { repoId: p.repoId, isRepoAdmin: true },
      'DEPLOY_KEY',
      'hunter2-secret',
    );
    await p.push({
      '.gitea/workflows/l.yml':
        'on: push\njobs:\n  l:\n    runs-on: log-box\n    steps: [{run: a}]\n',
    });
    await runsSettle(p, 1);
    const task = await runner.next();
    expect(task.secrets.DEPLOY_KEY).toBe('hunter2-secret');
    const row = (content: string) => ({ content });
    const log = async (index: number, contents: string[], noMore = false) =>
      Number(
        (
          await runner.client.updateLog(
            { taskId: task.id, index: BigInt(index), rows: contents.map(row), noMore },
            { headers: runner.headers },
          )
        ).ackIndex,
      );
    expect(await log(0, [])).toBe(0);
    expect(await log(0, ['a', 'b'])).toBe(2);
    expect(await log(5, ['gap'])).toBe(2);
    expect(await log(0, ['a', 'b'])).toBe(2);
    expect(await log(1, ['b', 'c with hunter2-secret inside'])).toBe(3);
    expect(await log(3, [], true)).toBe(3);
    expect(await log(3, [], true)).toBe(3);
    const error = await log(3, ['late']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.AlreadyExists);
    const lines = await kiln.app.services.ciLogs.readRows(Number(task.id), 0, 10);
    expect(lines.map((line) => line.slice(line.indexOf(' ') + 1))).toEqual([
      'a',
      'b',
      'c with *** inside',
    ]);
  });

  it('masks every line of a secret holding CR, LF or CRLF in rows a runner uploads unmasked', async () => {
    const runner = await ReplayRunner.register(kiln, { labels: ['crlf-box'] });
    const secrets = fc
      .array(fc.constantFrom('p', 'q', 'r', ' ', '\r', '\n', '\r\n'), {
        minLength: 4,
        maxLength: 20,
      })
      .map((parts) => parts.join(''))
      .filter((secret) => secret.trim().length >= 4);
    await fc.assert(
      fc.asyncProperty(secrets, async (secret) => {
        const p = await project();
        await kiln.app.services.ciSecrets.put({ repoId: p.repoId, isRepoAdmin: true }, 'S', secret);
        await p.push({
          '.gitea/workflows/m.yml':
            'on: push\njobs:\n  m:\n    runs-on: crlf-box\n    steps: [{run: a}]\n',
        });
        await runsSettle(p, 1);
        const task = await runner.next();
        // Every form a step's output gives the value: whole, split at any line end, CRs dropped.
        const rows = [secret, secret.replaceAll('\r', '')].flatMap((form) => [
          `x${form}y`,
          ...form.split(/\r?\n/),
          ...form.split(/\r\n|\r|\n/),
        ]);
        await runner.client.updateLog(
          { taskId: task.id, index: 0n, rows: rows.map((content) => ({ content })), noMore: true },
          { headers: runner.headers },
        );
        const stored = await kiln.app.services.ciLogs.readRows(Number(task.id), 0, rows.length);
        for (const line of stored) {
          const shown = line.slice(line.indexOf(' ') + 1).split(/\*\*\*|x|y|\r/);
          for (const piece of shown)
            expect(piece.trim().length, JSON.stringify({ secret, line })).toBeLessThan(4);
        }
      }),
      { numRuns: 6 },
    );
  }, 120_000);

  it('refuses reports about a task of another runner', async () => {
    const p = await project();
    const owner1 = await ReplayRunner.register(kiln, { labels: ['owned-box'] });
    const other = await ReplayRunner.register(kiln, { labels: ['none'] });
    await p.push({
      '.gitea/workflows/o.yml':
        'on: push\njobs:\n  o:\n    runs-on: owned-box\n    steps: [{run: a}]\n',
    });
    await runsSettle(p, 1);
    const task = await owner1.next();
    const error = await other.client
      .updateTask({ state: { id: task.id, result: Result.SUCCESS } }, { headers: other.headers })
      .catch((caught: unknown) => caught);
    expect((error as ConnectError).code).toBe(Code.PermissionDenied);
  });
});
