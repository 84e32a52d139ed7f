/**
 * Hostile CI input against the event loop: `GET /api/v1/version` p99 while each input that once
 * stalled the server is sent again and again, against its p99 with nothing else going on.
 *
 * Phases, each `--seconds` long, the probe calling `/api/v1/version` 10 ms after each answer:
 * idle; anonymous 16 MiB protobuf bodies to UpdateLog; a gzip bomb (24 KB inflating to 24 MiB)
 * from a registered runner; an UpdateLog of 3 MiB from that runner; a runner uploading 100-row
 * batches of 1 KB lines as fast as it is answered, past its task's log cap (set to 8 MiB here,
 * so the phase crosses it); and pushes of a workflow whose matrix makes 10,000 jobs, one after
 * another. Targets: each phase's p99 ≤ 50 ms and ≤ 3 × the idle p99.
 *
 * Kiln runs in a worker thread of its own (SQLite unless SERVICE_DATABASE_URL names a PostgreSQL
 * database), the probe in another; the hostile clients run in the main thread, where the bodies
 * are encoded before the phases start; git runs as child processes.
 *
 *   node bench/ci-hostile-input.ts [--seconds 5]
 *
 * Prints a table, then one JSON line `{"figures": [...]}` (see bench/run.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { create, toBinary } from '@bufbuild/protobuf';
import { UpdateLogRequestSchema } from '../src/gen/runner/v1/messages_pb.js';
import { GitClient, repoUrl } from '../test/support/git.ts';
import { benchRunnerWithTask, startBenchKiln } from './_kiln.ts';
import { seedBenchPerson } from './_seed.ts';

type Ready = { url: string; uuid: string; token: string; taskId: number; gitToken: string };

const TASK_LOG_BYTES = 8 * 1024 * 1024;

if (!isMainThread && (workerData as { probe?: string }).probe !== undefined) {
  probe((workerData as { probe: string }).probe);
} else if (!isMainThread) {
  await serve(workerData as { dataDir: string; databaseUrl: string | undefined });
} else {
  await main();
}

/**
 * The probe, in a thread of its own so that the hostile clients' work does not delay it:
 * `GET /api/v1/version` 10 ms after each answer; on a message it answers the latencies since the
 * last one and starts over.
 */
function probe(url: string) {
  let latencies: number[] = [];
  parentPort?.on('message', (message: string) => {
    if (message === 'stop') process.exit(0);
    parentPort?.postMessage(latencies);
    latencies = [];
  });
  void (async () => {
    for (;;) {
      const started = performance.now();
      const response = await fetch(`${url}/api/v1/version`);
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
}

/** The worker: Kiln with a runner holding a task and a repository to push to. */
async function serve(options: { dataDir: string; databaseUrl: string | undefined }) {
  const { app, server, url } = await startBenchKiln({
    ...options,
    env: { SERVICE_CI_LOG_MAX_BYTES_PER_TASK: String(TASK_LOG_BYTES) },
  });
  const { services } = app;
  const { user, token: gitToken } = await seedBenchPerson(services);
  const { repo } = await services.repos.create(user, { name: 'hostile', private: false });
  const runner = await benchRunnerWithTask(app, url, repo.id);
  parentPort?.postMessage({ url, ...runner, gitToken } satisfies Ready);
  parentPort?.once('message', async () => {
    await server.close();
    await app.close();
    parentPort?.postMessage('closed');
  });
}

/** POSTs a prepared body to a runner procedure; answers the status (the body is read and let go). */
function post(url: string, agent: Agent, procedure: string, body: Buffer, headers = {}) {
  return new Promise<number>((resolve) => {
    const sent = request(
      `${url}/api/actions/${procedure}`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/proto', 'content-length': body.length, ...headers },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    sent.on('error', () => resolve(0));
    sent.end(body);
  });
}

/** UpdateLog bytes of `rows` empty rows (two bytes each) for task 1, written directly. */
function emptyRows(rows: number): Buffer {
  const body = Buffer.alloc(2 + rows * 2);
  body[0] = 0x08;
  body[1] = 0x01;
  for (let at = 2; at < body.length; at += 2) body[at] = 0x1a;
  return body;
}

function p99(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}

async function main() {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '5' } } });
  const phaseMs = Number(values.seconds) * 1000;
  const dataDir = mkdtempSync(join(tmpdir(), 'kiln-bench-'));
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { dataDir, databaseUrl: process.env.SERVICE_DATABASE_URL },
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const git = await GitClient.create();
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const runner = { 'x-runner-uuid': ready.uuid, 'x-runner-token': ready.token };
  const origin = repoUrl(ready.url, 'bench', 'hostile', { token: ready.gitToken, as: 'password' });
  const work = await git.init();

  // Everything sent is encoded before the clock starts.
  const anonymous = emptyRows(8 * 1024 * 1024);
  const bomb = gzipSync(emptyRows(12 * 1024 * 1024), { level: 9 });
  const oversized = Buffer.from(
    toBinary(
      UpdateLogRequestSchema,
      create(UpdateLogRequestSchema, {
        taskId: BigInt(ready.taskId),
        rows: Array.from({ length: 100 }, () => ({ content: 'x'.repeat(30_000) })),
      }),
    ),
  );
  const line = 'y'.repeat(1000);
  const batch = (index: number) =>
    Buffer.from(
      toBinary(
        UpdateLogRequestSchema,
        create(UpdateLogRequestSchema, {
          taskId: BigInt(ready.taskId),
          index: BigInt(index),
          rows: Array.from({ length: 100 }, () => ({ content: line })),
        }),
      ),
    );
  const values10k = Array.from({ length: 100 }, (_, at) => at).join(', ');
  const matrix = `on: push\njobs:\n  huge:\n    runs-on: bench\n    strategy:\n      matrix:\n        a: [${values10k}]\n        b: [${values10k}]\n    steps: [{run: x}]\n`;
  let logged = 0;
  let pushes = 0;

  const UPDATE_LOG = 'runner.v1.RunnerService/UpdateLog';
  const phases: { name: string; send?: () => Promise<unknown>; loops?: number }[] = [
    { name: 'idle' },
    {
      name: 'anonymous 16 MiB protobuf',
      send: () => post(ready.url, agent, UPDATE_LOG, anonymous),
      loops: 2,
    },
    {
      name: 'gzip bomb from a runner',
      send: () =>
        post(ready.url, agent, UPDATE_LOG, bomb, { ...runner, 'content-encoding': 'gzip' }),
      loops: 2,
    },
    {
      name: 'oversized UpdateLog from a runner',
      send: () => post(ready.url, agent, UPDATE_LOG, oversized, runner),
      loops: 2,
    },
    {
      name: 'UpdateLog flood past the task cap',
      send: async () => {
        if ((await post(ready.url, agent, UPDATE_LOG, batch(logged), runner)) === 200)
          logged += 100;
      },
    },
    {
      name: 'pushes of a 10,000-combination matrix',
      send: async () => {
        await git.commit(work, { '.gitea/workflows/huge.yml': matrix, 'n.txt': String(pushes) });
        await git.ok(['push', '-q', '-f', origin, 'HEAD:refs/heads/main'], { cwd: work });
        pushes++;
      },
    },
  ];

  const prober = new Worker(new URL(import.meta.url), { workerData: { probe: ready.url } });
  const collect = () =>
    new Promise<number[]>((resolve) => {
      prober.once('message', resolve);
      prober.postMessage('collect');
    });
  const results: { name: string; p99: number; probes: number; sent: number }[] = [];
  for (const phase of phases) {
    const deadline = performance.now() + phaseMs;
    let sent = 0;
    const drivers = Array.from({ length: phase.send ? (phase.loops ?? 1) : 0 }, async () => {
      while (performance.now() < deadline) {
        await phase.send?.();
        sent++;
      }
    });
    await collect();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - performance.now())));
    const latencies = await collect();
    await Promise.all(drivers);
    results.push({ name: phase.name, p99: p99(latencies), probes: latencies.length, sent });
  }

  const idle = results[0]?.p99 ?? 0;
  for (const { name, p99: value, probes, sent } of results) {
    console.log(`${name.padEnd(40)} p99 ${value.toFixed(1)} ms  (${probes} probes, ${sent} sent)`);
  }
  console.log(`log rows acknowledged in the flood: ${logged}`);
  const figures = results.slice(1).flatMap(({ name, p99: value }) => [
    {
      name: `/api/v1/version p99 during ${name}`,
      target: '≤ 50',
      measured: Number(value.toFixed(2)),
      unit: 'ms',
      pass: value <= 50,
    },
    {
      name: `… ÷ idle p99 (${idle.toFixed(1)} ms)`,
      target: '≤ 3',
      measured: Number((value / idle).toFixed(2)),
      unit: 'ratio',
      pass: value / idle <= 3,
    },
  ]);
  prober.postMessage('stop');
  await new Promise((resolve) => {
    worker.once('message', resolve);
    worker.postMessage('close');
  });
  await worker.terminate();
  await git.dispose();
  agent.destroy();
  rmSync(dataDir, { recursive: true, force: true });
  console.log(JSON.stringify({ figures }));
}
