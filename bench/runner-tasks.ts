/**
 * Task execution costs of the runner protocol, each against Ping on the same server (Ping has no
 * credentials and no database, so it measures the HTTP + Connect overhead):
 *
 * - idle polling: FetchTask with the runner's current `tasks_version` (what 200 idle runners
 *   polling every 2 s send: 100 calls a second), as server CPU per call, turned into the share
 *   of one core those 200 runners cost; target ≤ 10 %;
 * - log ingestion: 100,000 lines as UpdateLog batches of 100 rows (encoded before the clock
 *   starts), one runner reporting in order, against the same number of Ping calls in alternating
 *   segments; target ≥ 0.5 × the Ping rate;
 * - reading a 100,000-line log: the last page of 100 rows against the first; target ≤ 2 ×.
 *
 * The server runs in a worker thread of its own (a real Kiln, SQLite unless
 * SERVICE_DATABASE_URL names a PostgreSQL database); the client is a thin binary Connect client
 * over HTTP/1.1 keep-alive in the main thread.
 *
 *   node bench/runner-tasks.ts [--polls 3000] [--lines 100000] [--rounds 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { PingRequestSchema, PingResponseSchema } from '../src/gen/ping/v1/messages_pb.js';
import {
  FetchTaskRequestSchema,
  FetchTaskResponseSchema,
  UpdateLogRequestSchema,
  UpdateLogResponseSchema,
} from '../src/gen/runner/v1/messages_pb.js';
import { benchRunnerWithTask, startBenchKiln, unaryCaller } from './_kiln.ts';
import { median } from './_stats.ts';

type Ready = { url: string; uuid: string; token: string; taskId: number };

if (!isMainThread) {
  await serve(workerData as { dataDir: string; databaseUrl: string | undefined });
} else {
  await main();
}

/** The worker: a real Kiln with one runner holding one task; answers cpu / pages / close. */
async function serve(options: { dataDir: string; databaseUrl: string | undefined }) {
  const { app, server, url } = await startBenchKiln(options);
  const { services } = app;
  const owner = await services.users.createUser({
    handle: 'bench',
    email: 'bench@example.test',
    password: 'correct horse battery',
    fullName: '',
  });
  const { repo } = await services.repos.create(owner, { name: 'logs', private: false });
  const runner = await benchRunnerWithTask(app, url, repo.id);
  parentPort?.postMessage({ url, ...runner } satisfies Ready);
  parentPort?.on('message', async (message: { kind: string; taskId?: number }) => {
    if (message.kind === 'cpu') {
      const { user, system } = process.threadCpuUsage();
      parentPort?.postMessage(user + system);
    } else if (message.kind === 'pages') {
      parentPort?.postMessage(await timePages(services.ciLogs, message.taskId ?? 0));
    } else {
      await server.close();
      await app.close();
      parentPort?.postMessage('closed');
    }
  });
}

/** Median µs of reading the first and the last 100 rows, alternating, 201 times each. */
async function timePages(
  logs: {
    rowCount(id: number): Promise<number>;
    readRows(id: number, from: number, n: number): Promise<string[]>;
  },
  taskId: number,
) {
  const total = await logs.rowCount(taskId);
  const first: number[] = [];
  const last: number[] = [];
  const time = async (from: number, into: number[]) => {
    const started = process.hrtime.bigint();
    const rows = await logs.readRows(taskId, from, 100);
    into.push(Number(process.hrtime.bigint() - started) / 1000);
    if (rows.length !== 100) throw new Error(`page at ${from} has ${rows.length} rows`);
  };
  for (let i = 0; i < 201; i++) {
    await time(0, first);
    await time(total - 100, last);
  }
  return { total, first: median(first), last: median(last) };
}

async function main() {
  const { values } = parseArgs({
    options: {
      polls: { type: 'string', default: '3000' },
      lines: { type: 'string', default: '100000' },
      rounds: { type: 'string', default: '3' },
    },
  });
  const polls = Number(values.polls);
  const batches = Math.ceil(Number(values.lines) / 100);
  const rounds = Number(values.rounds);
  const dataDir = mkdtempSync(join(tmpdir(), 'kiln-bench-'));
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { dataDir, databaseUrl: process.env.SERVICE_DATABASE_URL },
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const headers = { 'x-runner-uuid': ready.uuid, 'x-runner-token': ready.token };
  const ask = <T>(message: { kind: string; taskId?: number }) =>
    new Promise<T>((resolve) => {
      worker.once('message', resolve);
      worker.postMessage(message);
    });

  const unary = unaryCaller(ready.url, agent);

  /** `total` calls from `concurrency` loops: calls per second and server CPU µs per call. */
  async function drive(total: number, concurrency: number, step: (i: number) => Promise<void>) {
    let next = 0;
    const cpuBefore = await ask<number>({ kind: 'cpu' });
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) await step(next++);
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpuPerCall = ((await ask<number>({ kind: 'cpu' })) - cpuBefore) / total;
    return { rate: total / seconds, cpuPerCall };
  }

  const ping = async (i: number) => {
    await unary(
      'ping.v1.PingService/Ping',
      PingRequestSchema,
      PingResponseSchema,
      create(PingRequestSchema, { data: `r${i}` }),
    );
  };
  let version = 0n;
  const fetchIdle = async () => {
    const answer = await unary(
      'runner.v1.RunnerService/FetchTask',
      FetchTaskRequestSchema,
      FetchTaskResponseSchema,
      create(FetchTaskRequestSchema, { tasksVersion: version }),
      headers,
    );
    version = answer.tasksVersion;
  };
  // The UpdateLog bodies are encoded before the clock starts: the figure is the server's
  // ingestion, and protobuf-es encoding 100 rows in this thread cost about as much as the
  // server's whole call (a Go runner encodes them in a fraction of that).
  const logBodies = Array.from({ length: batches }, (_, batch) =>
    toBinary(
      UpdateLogRequestSchema,
      create(UpdateLogRequestSchema, {
        taskId: BigInt(ready.taskId),
        index: BigInt(batch * 100),
        rows: Array.from({ length: 100 }, (_, i) => ({
          time: timestampFromDate(new Date()),
          content: `line ${batch * 100 + i} of the build output, as long as a typical compiler line is`,
        })),
      }),
    ),
  );
  let logged = 0;
  const logBatch = async (batch: number) => {
    const answer = await unary(
      'runner.v1.RunnerService/UpdateLog',
      UpdateLogRequestSchema,
      UpdateLogResponseSchema,
      logBodies[batch] ?? new Uint8Array(0),
      headers,
    );
    logged = Number(answer.ackIndex);
    if (logged !== (batch + 1) * 100) throw new Error(`UpdateLog ${batch} acknowledged ${logged}`);
  };

  /**
   * Ping and UpdateLog in alternating segments of the batches, one call at a time as a runner
   * reports: the load other work puts on the machine moves both sides of each pair alike. The
   * ratio is the median of the pairs' ratios.
   */
  async function ingest(segments: number) {
    const size = Math.ceil(batches / segments);
    const ratios: number[] = [];
    let pingRate = 0;
    let logRate = 0;
    let pingCpu = 0;
    let logCpu = 0;
    for (let from = 0; from < batches; from += size) {
      const count = Math.min(size, batches - from);
      const p = await drive(count, 1, ping);
      const l = await drive(count, 1, (i) => logBatch(from + i));
      ratios.push(l.rate / p.rate);
      pingRate += p.rate / segments;
      logRate += l.rate / segments;
      pingCpu += p.cpuPerCall / segments;
      logCpu += l.cpuPerCall / segments;
    }
    return { ratio: median(ratios), pingRate, logRate, pingCpu, logCpu };
  }

  try {
    await fetchIdle();
    await drive(500, 8, ping);
    await drive(500, 8, fetchIdle);
    const idle: { ping: number; fetch: number }[] = [];
    for (let round = 0; round < rounds; round++) {
      const p = await drive(polls, 8, ping);
      const f = await drive(polls, 8, fetchIdle);
      idle.push({ ping: p.cpuPerCall, fetch: f.cpuPerCall });
    }
    const fetchCpu = median(idle.map((pair) => pair.fetch));
    const pingCpu = median(idle.map((pair) => pair.ping));
    // 200 runners every 2 s = 100 FetchTask calls a second; µs per call × 100 / 10⁶ s = share.
    const idleCoreShare = (fetchCpu * 100) / 1e6;

    const logs = await ingest(10);
    const pages = await ask<{ total: number; first: number; last: number }>({
      kind: 'pages',
      taskId: ready.taskId,
    });

    console.log(
      `idle FetchTask: ${fetchCpu.toFixed(0)} µs CPU per call (Ping ${pingCpu.toFixed(0)} µs)`,
    );
    console.log(`200 runners polling every 2 s: ${(idleCoreShare * 100).toFixed(2)} % of one core`);
    console.log(
      `UpdateLog (100 rows): ${logs.logRate.toFixed(0)} calls/s; Ping ${logs.pingRate.toFixed(0)} calls/s (means of segments; median ratio ${logs.ratio.toFixed(2)})`,
    );
    console.log(
      `server CPU per call: UpdateLog ${logs.logCpu.toFixed(0)} µs, Ping ${logs.pingCpu.toFixed(0)} µs`,
    );
    console.log(
      `log of ${pages.total} rows: first page ${pages.first.toFixed(0)} µs, last ${pages.last.toFixed(0)} µs`,
    );
    const logRatio = logs.ratio;
    const pageRatio = pages.last / pages.first;
    console.log(
      JSON.stringify({
        figures: [
          {
            name: '200 idle runners polling every 2 s, server CPU',
            target: '≤ 10',
            measured: Number((idleCoreShare * 100).toFixed(2)),
            unit: '% of one core',
            pass: idleCoreShare <= 0.1,
          },
          {
            name: 'UpdateLog of 100 rows / Ping, calls per second',
            target: '≥ 0.5',
            measured: Number(logRatio.toFixed(2)),
            unit: 'ratio',
            pass: logRatio >= 0.5,
          },
          {
            name: 'last / first page of a 100,000-line log',
            target: '≤ 2',
            measured: Number(pageRatio.toFixed(2)),
            unit: 'ratio',
            pass: pageRatio <= 2,
          },
        ],
      }),
    );
  } finally {
    await ask({ kind: 'close' });
    await worker.terminate();
    agent.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
