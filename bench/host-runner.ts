/**
 * The built-in runner's cost on the host: a job of one `run: true` step against running bash
 * directly, and a step printing 100,000 lines through the whole reporting path (masking, batching,
 * UpdateLog over HTTP to a server in this process that stores the rows) against the same command
 * writing to /dev/null.
 *
 *   node bench/host-runner.ts [--jobs 15] [--lines 100000] [--rounds 5]
 *
 * Each comparison alternates its two sides and reports the median of each side.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { RunnerService } from '../src/gen/runner/v1/services_pb.js';
import { runnerClients } from '../src/runner/client.ts';
import { runJob } from '../src/runner/engine/job.ts';
import type { HostInput, JobSink } from '../src/runner/engine/task-input.ts';
import { DEFAULT_TIMING } from '../src/runner/reporter.ts';
import { startTask } from '../src/runner/task.ts';
import { median } from './_stats.ts';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '15' },
    lines: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '5' },
    serve: { type: 'boolean', default: false },
  },
});
const JOBS = Number(values.jobs);
const LINES = Number(values.lines);
const ROUNDS = Number(values.rounds);

function bash(script: string, stdout: 'ignore' | 'pipe' = 'ignore'): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', script], {
      stdio: ['ignore', stdout, 'ignore'],
    });
    child.on('close', () => resolve(performance.now() - started));
  });
}

// A server that stores the rows it is sent, with the acknowledgement a real one gives; it runs
// in a process of its own (`--serve`), as a real server would, so its work is not counted here.
if (values.serve) {
  let stored = 0;
  let calls = 0;
  const server = createServer(
    connectNodeAdapter({
      requestPathPrefix: '/api/actions',
      routes: (router) =>
        router.service(RunnerService, {
          updateLog: (req) => {
            calls++;
            if (Number(req.index) === 0) stored = 0;
            const end = Number(req.index) + req.rows.length;
            if (Number(req.index) <= stored && end > stored) stored = end;
            if (req.noMore) {
              const cpu = process.cpuUsage();
              process.stdout.write(
                `stored ${stored} in ${calls} calls, server CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms\n`,
              );
            }
            return { ackIndex: BigInt(stored) };
          },
          updateTask: (req) => ({
            state: { id: req.state?.id ?? 0n },
            sentOutputs: Object.keys(req.outputs),
          }),
        }),
    }),
  );
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`port ${(server.address() as AddressInfo).port}\n`);
  });
  await new Promise(() => {});
}
const serverProcess = spawn(process.execPath, [import.meta.filename, '--serve'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let serverOutput = '';
serverProcess.stdout.setEncoding('utf8').on('data', (chunk: string) => {
  serverOutput += chunk;
});
while (!/port \d+/.test(serverOutput)) await new Promise((resolve) => setTimeout(resolve, 20));
const url = `http://127.0.0.1:${/port (\d+)/.exec(serverOutput)?.[1]}`;
/** Rows the server says it stored for the last finished log. */
const stored = () => Number([...serverOutput.matchAll(/stored (\d+)/g)].at(-1)?.[1] ?? 0);
const workRoot = mkdtempSync(join(tmpdir(), 'kiln-bench-runner-'));
const host: HostInput = {
  workRoot,
  runnerName: 'bench',
  instance: url,
  hostEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
  killGraceMs: 1000,
};
const nullSink: JobSink = { line: () => {}, stepStarted: () => {}, stepFinished: () => {} };
const task = (workflow: string, id: string) => ({
  id,
  workflowPayload: workflow,
  context: {},
  secrets: { TOKEN: 'a-secret-to-mask' },
  vars: {},
  needs: {},
});

// 1. Overhead of a one-step job.
const jobTimes: number[] = [];
const bashTimes: number[] = [];
for (let i = 0; i < JOBS; i++) {
  const started = performance.now();
  await runJob(
    task('jobs:\n  a:\n    steps:\n      - run: "true"\n', String(i)),
    host,
    nullSink,
    new AbortController().signal,
  );
  jobTimes.push(performance.now() - started);
  bashTimes.push(await bash('true'));
}
const overhead = median(jobTimes) - median(bashTimes);
console.log(
  `one-step job ${median(jobTimes).toFixed(1)} ms, bash alone ${median(bashTimes).toFixed(1)} ms`,
);

// 2. Log throughput through the reporter.
const loop = `for i in $(seq ${LINES}); do echo "build output line $i of the step"; done`;
const { runner } = runnerClients(url);
const timing = { ...DEFAULT_TIMING, retryMs: 200 };
const reported: number[] = [];
const devNull: number[] = [];
/** The runner's own CPU per round (this process: line handling, encoding, sending). */
const runnerCpu: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const running = startTask({
    client: runner,
    task: {
      id: BigInt(round + 1),
      workflowPayload: new TextEncoder().encode(
        `jobs:\n  a:\n    steps:\n      - run: |\n          ${loop}\n`,
      ),
      context: {},
      secrets: {},
      vars: {},
      needs: {},
    } as never,
    host,
    log: () => {},
    timing,
  });
  await running.done;
  reported.push(performance.now() - started);
  const cpu = process.cpuUsage(cpuBefore);
  runnerCpu.push((cpu.user + cpu.system) / 1000);
  await new Promise((resolve) => setTimeout(resolve, 100));
  if (stored() < LINES) throw new Error(`only ${stored()} of ${LINES} rows reached the server`);
  devNull.push(await bash(loop));
}
const ratio = median(reported) / median(devNull);
console.log(serverOutput.trim().split('\n').at(-1));
console.log(
  `${LINES} lines reported ${median(reported).toFixed(0)} ms, to /dev/null ${median(devNull).toFixed(0)} ms`,
);
console.log(`runner CPU per round ${median(runnerCpu).toFixed(0)} ms (median)`);

serverProcess.kill();
rmSync(workRoot, { recursive: true, force: true });
console.log(
  JSON.stringify({
    figures: [
      {
        name: 'job of one `run: true` step, minus `bash -c true` alone, medians',
        target: '≤ 100 ms',
        measured: Number(overhead.toFixed(1)),
        unit: 'ms',
        pass: overhead <= 100,
      },
      {
        name: `step printing ${LINES} lines, reported through UpdateLog ÷ the same loop to /dev/null, medians`,
        target: '≤ 1.5',
        measured: Number(ratio.toFixed(2)),
        unit: '',
        pass: ratio <= 1.5,
      },
    ],
  }),
);
