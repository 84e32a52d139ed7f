/**
 * Hostile CI input against the request thread: `GET /api/v1/version` p99 while each of six
 * inputs is tried in turn, against its p99 idle (targets ≤ 50 ms and ≤ 3 × idle):
 *
 * 1. anonymous 16 MiB protobuf bodies POSTed to FetchTask and UpdateLog;
 * 2. a 24 KB gzip body that inflates about a thousandfold, on the same two calls;
 * 3. a registered runner flooding UpdateLog (batches of 500 rows of 1 KB, back to back);
 * 4. repeated GETs of a job log page whose log holds 10,000 rows of 64 KiB;
 * 5. repeated GETs of a commit page whose diff is over 16 MiB;
 * 6. pushes of a workflow whose matrix has 10,000 combinations (last: it leaves jobs behind).
 *
 * Beside them, contrasts with nothing hostile in them: the same page clients on an ordinary page
 * and on a raw file as large as the commit page's answer (what sending those bytes alone costs
 * the probe), the same push client pushing an ordinary workflow to Kiln, and the same pushes to a bare
 * repository on disk that Kiln never sees (what the push load alone costs the probe here).
 *
 *   node bench/ci-hostile.ts [--seconds 10]
 *
 * Kiln is a real `serve` child process, started with the `kiln` launcher's flags and preload,
 * on SQLite (the hostile suites' harness), bot protection off so that every request does its
 * work (metering would answer most of a single address's page requests with 429). Pages are
 * requested by 4 keep-alive clients in a worker thread (bench/_page-clients.ts), runner-protocol
 * bodies by clients in another (bench/_runner-clients.ts), pushes in a third
 * (bench/_push-clients.ts), so that building and sending the load never delays the probe.
 * The probe asks one request after another, 10 ms apart. The log
 * is seeded through the store on the shared data directory (what 10,000 UpdateLog rows would
 * write), the diff with real git. `CI_HOSTILE_NODE_OPTIONS` is handed to the server as
 * NODE_OPTIONS (`--cpu-prof --cpu-prof-dir=/tmp/prof`); the server is then stopped, not killed,
 * so that it writes its profile. `CI_HOSTILE_NODE_ARGS` adds flags NODE_OPTIONS refuses
 * (`--trace-gc-nvp`), and `CI_HOSTILE_SERVER_OUT=file` keeps what the server printed.
 */

import { writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  FetchTaskRequestSchema,
  FetchTaskResponseSchema,
  LogRowSchema,
  RegisterRequestSchema,
  RegisterResponseSchema,
  UpdateLogRequestSchema,
} from '../src/gen/runner/v1/messages_pb.js';
import { createDeployment } from '../test/replicas/kiln-process.ts';
import { GitClient, repoUrl } from '../test/support/git.ts';
import { giveUpAfter } from './_give-up.ts';
import { unaryCaller } from './_kiln.ts';
import { pageClients } from './_page-clients.ts';
import { cpuSoFar } from './_process-cpu.ts';
import { pushClients } from './_push-clients.ts';
import { runnerClients } from './_runner-clients.ts';
import { startEnv, startFlags } from './_start-flags.ts';

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, phases: { type: 'string' } },
});
/** `--phases log-page,diff-page` runs only those phases (by key). */
const ONLY = args.phases?.split(',');
const PHASE_MS = Number(args.seconds) * 1000;
const done = giveUpAfter('ci-hostile', 15);

const quantile = (values: readonly number[], q: number) =>
  [...values].sort((a, b) => a - b)[
    Math.min(values.length - 1, Math.ceil(q * values.length) - 1)
  ] ?? 0;

/** `/api/v1/version` latencies (ms), one request at a time, until `ms` have passed. */
async function probe(url: string, ms: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const started = performance.now();
    await (await fetch(`${url}/api/v1/version`)).text();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return latencies;
}

const logRows = (count: number, bytes: number) =>
  Array.from({ length: count }, () =>
    create(LogRowSchema, { time: timestampFromDate(new Date()), content: 'x'.repeat(bytes) }),
  );

const deployment = await createDeployment({
  SERVICE_PROTECT_ENABLED: 'false',
  SERVICE_SECRET_KEY: 'ci hostile bench secret key',
});
const git = await GitClient.create();
try {
  const { app, make } = await deployment.open();
  const { OPERATOR } = await import('../src/domain/runners/runner.policy.ts');
  const { user, token } = await make.userWithToken();
  await app.services.repos.create(user, { name: 'ci', private: false });
  const { token: registration } = await app.services.runnerAdmin.createToken(OPERATOR, {
    kind: 'instance',
  });
  const nodeOptions = process.env.CI_HOSTILE_NODE_OPTIONS;
  const nodeArgs = (process.env.CI_HOSTILE_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  // Started as the `kiln` launcher starts it (its V8 flags, preload and environment), unless
  // CI_HOSTILE_PLAIN_NODE=1 asks for a plain `node` for comparison.
  const launcher = process.env.CI_HOSTILE_PLAIN_NODE !== '1';
  const kiln = await deployment.start(
    { ...(launcher ? startEnv() : {}), ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) },
    [...(launcher ? startFlags() : []), ...nodeArgs],
  );
  const url = kiln.url;
  const unary = unaryCaller(url, new Agent({ keepAlive: true }));
  const origin = repoUrl(url, user.handle, 'ci', { token, as: 'password' });
  const push = (dir: string) =>
    git.ok(['push', '-q', origin, 'HEAD:refs/heads/main'], { cwd: dir, timeoutMs: 300_000 });

  // A runner, two jobs for it (one to hold the big log, one to flood), and a big diff.
  const { runner } = await unary(
    'runner.v1.RunnerService/Register',
    RegisterRequestSchema,
    RegisterResponseSchema,
    create(RegisterRequestSchema, {
      name: 'bench',
      token: registration,
      version: 'v0.2.11',
      labels: ['bench'],
      ephemeral: false,
    }),
  );
  if (!runner) throw new Error('no runner registered');
  const runnerHeaders = { 'x-runner-uuid': runner.uuid, 'x-runner-token': runner.token };
  const work = await git.init();
  await git.commit(
    work,
    {
      '.gitea/workflows/ci.yml':
        'on: push\njobs:\n  big:\n    runs-on: bench\n    steps: [{run: a}]\n  flood:\n    runs-on: bench\n    steps: [{run: b}]\n',
      'huge.txt': 'start\n',
    },
    'CI',
  );
  await push(work);
  const tasks: bigint[] = [];
  for (let tries = 0; tasks.length < 2 && tries < 200; tries++) {
    const { task } = await unary(
      'runner.v1.RunnerService/FetchTask',
      FetchTaskRequestSchema,
      FetchTaskResponseSchema,
      create(FetchTaskRequestSchema, {}),
      runnerHeaders,
    );
    if (task) tasks.push(task.id);
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const [logTask, floodTask] = tasks;
  if (logTask === undefined || floodTask === undefined) throw new Error('the runner got no tasks');
  const row = 'y<&'.repeat((64 * 1024) / 3);
  for (let from = 0; from < 10_000; from += 100) {
    const rows = Array.from({ length: 100 }, () => ({ time: new Date(), content: row }));
    await app.services.ciLogs.append(Number(logTask), from, rows);
  }
  await app.services.ciLogs.closeAll();
  const files: Record<string, string> = {};
  const line = (n: number) => `line ${n} <tag attr="&amp;"> é€ ${'z'.repeat(60)}\n`;
  for (let f = 0; f < 120; f++)
    files[`many/f${f}.txt`] = Array.from({ length: 400 }, (_, n) => line(n)).join('');
  files['long.txt'] = Array.from({ length: 12 }, (_, n) => `${n}${'<&'.repeat(100_000)}\n`).join(
    '',
  );
  files['huge.txt'] = Array.from({ length: 100_000 }, (_, n) => line(n)).join('');
  const big = await git.commit(work, files, 'a very large change');
  await push(work);
  const base = `/repos/${user.handle}/ci`;
  const jobPage = `${base}/actions/runs/1/jobs/${logTask}`;
  const commitPage = `${base}/commit/${big}`;
  // A plain file as large as the commit page's answer, for a contrast of the same bytes.
  const pageBytes = (await (await fetch(url + commitPage)).arrayBuffer()).byteLength;
  await git.commit(work, { 'same-size.txt': 'x'.repeat(pageBytes) }, 'a file of the page size');
  await push(work);
  const sameSizeRaw = `${base}/raw/main/same-size.txt`;

  // Bodies made before their phase.
  const huge = Buffer.from(
    toBinary(
      UpdateLogRequestSchema,
      create(UpdateLogRequestSchema, {
        taskId: floodTask,
        index: 0n,
        rows: logRows(256, 64 * 1024),
      }),
    ),
  );
  const inflated = 24 * 1024 * 1024;
  const bomb = gzipSync(Buffer.alloc(inflated), { level: 9 });
  const matrix = `on: push\njobs:\n  wide:\n    runs-on: nobody\n    strategy:\n      matrix:\n        a: [${Array.from({ length: 100 }, (_, i) => i).join(', ')}]\n        b: [${Array.from({ length: 100 }, (_, i) => i).join(', ')}]\n    steps: [{run: x}]\n`;
  let floodIndex = 0n;
  const procedures = ['FetchTask', 'UpdateLog'];

  /** A phase of 4 clients asking for `page` again and again; what they were answered. */
  const asking = (page: string) => async (ms: number) => {
    const statuses = await pageClients({ url, pages: [page], clients: 4, ms });
    return [...statuses].map(([status, n]) => `${n} × ${status}`).join(', ');
  };
  /** A phase of one client committing a change to the workflow at `path` and pushing it. */
  const pushing = (path: string, content: string) => async (ms: number) => {
    const pushes = await pushClients({ dir: work, origin, path, content, ms });
    return `${pushes} pushes`;
  };
  const plainWorkflow = 'on: push\njobs:\n  one:\n    runs-on: nobody\n    steps: [{run: x}]\n';
  /**
   * A contrast is the same load with nothing hostile in it (an ordinary page, an ordinary
   * workflow), reported beside the hostile phase: what a flood of that size costs the probe on
   * this machine whatever it asks for, against which the hostile input's own cost reads.
   */
  const phases: Array<{
    key: string;
    name: string;
    contrast?: true;
    run: (ms: number) => Promise<string>;
  }> = [
    {
      key: 'big-body',
      name: '(i) anonymous 16 MiB protobuf to FetchTask and UpdateLog',
      run: async (ms) => {
        const { statuses } = await runnerClients({
          url,
          ms,
          load: { kind: 'bodies', procedures, body: huge, concurrency: 2, headers: {} },
        });
        // Status 0: the socket failed before an answer was read.
        const sent = statuses.reduce((sum, [, count]) => sum + count, 0);
        const answers = statuses.map(([status, count]) => `${count} × ${status}`).join(', ');
        return `${sent} bodies of ${(huge.length / 2 ** 20).toFixed(1)} MiB: ${answers}`;
      },
    },
    {
      key: 'gzip-bomb',
      name: `(ii) gzip body of ${(bomb.length / 1024).toFixed(0)} KB inflating to ${inflated / 2 ** 20} MiB`,
      run: async (ms) => {
        const { statuses } = await runnerClients({
          url,
          ms,
          load: {
            kind: 'bodies',
            procedures,
            body: bomb,
            concurrency: 2,
            headers: { 'content-encoding': 'gzip' },
          },
        });
        return `${statuses.reduce((sum, [, count]) => sum + count, 0)} bodies`;
      },
    },
    {
      key: 'log-flood',
      name: '(v) a registered runner flooding UpdateLog',
      run: async (ms) => {
        const from = floodIndex;
        const { index } = await runnerClients({
          url,
          ms,
          load: {
            kind: 'log-flood',
            taskId: floodTask,
            from,
            rows: 500,
            rowBytes: 1024,
            headers: runnerHeaders,
          },
        });
        floodIndex = index;
        return `${index - from} rows of 1 KB accepted`;
      },
    },
    {
      key: 'plain-page',
      name: 'contrast: GETs of the repository page, an ordinary page, by the same 4 clients',
      contrast: true,
      run: asking(base),
    },
    {
      key: 'same-size',
      name: 'contrast: GETs of a raw file as large as the commit page, by the same 4 clients',
      contrast: true,
      run: asking(sameSizeRaw),
    },
    {
      key: 'log-page',
      name: '(iv) GETs of a job log page, 10,000 rows of 64 KiB',
      run: asking(jobPage),
    },
    {
      key: 'diff-page',
      name: '(vi) GETs of a commit page with a 16 MiB diff',
      run: asking(commitPage),
    },
    {
      key: 'push-elsewhere',
      name: 'contrast: the same pushes to a bare repository on disk (file://), Kiln not involved',
      contrast: true,
      run: async (ms) => {
        const bare = await git.tempDir('elsewhere-');
        await git.ok(['init', '-q', '--bare', bare]);
        await git.ok(['push', '-q', bare, 'HEAD:refs/heads/main'], { cwd: work });
        const pushes = await pushClients({
          dir: work,
          origin: bare,
          path: '.gitea/workflows/plain.yml',
          content: plainWorkflow,
          ms,
        });
        return `${pushes} pushes`;
      },
    },
    {
      key: 'plain-push',
      name: 'contrast: pushes of an ordinary one-job workflow by the same client',
      contrast: true,
      run: pushing('.gitea/workflows/plain.yml', plainWorkflow),
    },
    {
      key: 'matrix-push',
      name: '(iii) pushes of a workflow with a 10,000-combination matrix',
      run: pushing('.gitea/workflows/wide.yml', matrix),
    },
  ];

  await probe(url, 1000);
  if (process.env.CI_HOSTILE_TIMES) {
    for (const path of [jobPage, commitPage, jobPage, commitPage, jobPage, commitPage]) {
      const started = performance.now();
      const answer = await fetch(url + path);
      const size = (await answer.arrayBuffer()).byteLength;
      process.stdout.write(
        `${path.slice(-20)} ${answer.status} ${size} B ${(performance.now() - started).toFixed(1)} ms\n`,
      );
    }
  }
  const idle = quantile(await probe(url, PHASE_MS), 0.99);
  const lines = [
    '',
    `GET /api/v1/version p99, ${PHASE_MS / 1000} s per phase`,
    `  idle  p99 ${idle.toFixed(1)} ms`,
  ];
  const figures = [
    {
      name: 'idle p99',
      target: '≤ 50',
      measured: Number(idle.toFixed(1)),
      unit: 'ms',
      pass: idle <= 50,
    },
  ];
  for (const phase of phases.filter((p) => !ONLY || ONLY.includes(p.key))) {
    const cpuBefore = cpuSoFar(kiln.pid).own;
    const [what, latencies] = await Promise.all([phase.run(PHASE_MS), probe(url, PHASE_MS)]);
    // Whatever the input left running is let finish before the next phase's probe.
    await probe(url, 2000);
    const cpu = cpuSoFar(kiln.pid).own - cpuBefore;
    const p99 = quantile(latencies, 0.99);
    const ratio = p99 / idle;
    lines.push(
      `  ${phase.name}: p99 ${p99.toFixed(1)} ms, median ${quantile(latencies, 0.5).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(0)} ms over ${latencies.length} probes, ÷ idle ${ratio.toFixed(2)}, server CPU ${cpu} ms  (${what})`,
    );
    figures.push(
      {
        name: `${phase.name}: p99`,
        target: '≤ 50',
        measured: Number(p99.toFixed(1)),
        unit: 'ms',
        pass: p99 <= 50,
      },
      {
        name: `${phase.name}: p99 ÷ idle`,
        target: phase.contrast ? 'reported' : '≤ 3',
        measured: Number(ratio.toFixed(2)),
        unit: '×',
        pass: phase.contrast === true || ratio <= 3,
      },
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stdout.write(`${JSON.stringify({ figures })}\n`);
  // A profiled server writes its profile only when it exits on its own.
  if (nodeOptions) await kiln.stop();
  const serverOut = process.env.CI_HOSTILE_SERVER_OUT;
  if (serverOut) writeFileSync(serverOut, kiln.stdout());
} finally {
  await git.dispose();
  await deployment.dispose();
  done();
}
