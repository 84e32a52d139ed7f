/**
 * Runner registration throughput against Ping on the same server.
 *
 * Ping is the cheapest call under /api/actions (no credentials, no database), so it measures the
 * HTTP + Connect overhead; Register + Declare is what a fleet of runners starting at once costs
 * (token lookup, runner insert, credential check, declaration update). The server runs in a
 * worker thread of its own; the client side is a thin Connect unary client (binary codec, plain
 * HTTP/1.1 keep-alive, as the Go runners speak it) in the main thread, so that client cost
 * weighs as little as possible on the comparison. C concurrent loops run until N calls are done.
 *
 *   node bench/runner-register.ts [--calls 2000] [--concurrency 16] [--rounds 9]
 *
 * Prints calls per second of each by the wall clock and the CPU time the server thread spent
 * per call, and both ratios as the median of the rounds' pairs (each round runs both sides back
 * to back); the target is a Register/Declare call rate at least half the Ping rate.
 * SERVICE_DATABASE_URL=postgres://… benchmarks PostgreSQL instead of SQLite (use a throwaway
 * database); the PostgreSQL server's own CPU time is then not in the per-call figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { create } from '@bufbuild/protobuf';
import { PingRequestSchema, PingResponseSchema } from '../src/gen/ping/v1/messages_pb.js';
import {
  DeclareRequestSchema,
  DeclareResponseSchema,
  RegisterRequestSchema,
  RegisterResponseSchema,
} from '../src/gen/runner/v1/messages_pb.js';
import { startBenchKiln, unaryCaller } from './_kiln.ts';
import { median } from './_stats.ts';

if (!isMainThread) {
  await serve(workerData as { dataDir: string; databaseUrl: string | undefined });
} else {
  await main();
}

/** The worker: a real Kiln on 127.0.0.1, port 0; posts its URL and a registration token. */
async function serve(options: { dataDir: string; databaseUrl: string | undefined }) {
  const { app, server, url } = await startBenchKiln(options);
  const { OPERATOR } = await import('../src/domain/runners/runner.policy.ts');
  const { token } = await app.services.runnerAdmin.createToken(OPERATOR, { kind: 'instance' });
  parentPort?.postMessage({
    url,
    token,
    engine: app.database.dialect,
  });
  parentPort?.on('message', async (message: unknown) => {
    if (message === 'cpu') {
      const { user, system } = process.threadCpuUsage();
      parentPort?.postMessage(user + system);
      return;
    }
    await server.close();
    await app.close();
    parentPort?.postMessage('closed');
  });
}

/** One timed run of one side: calls per wall-clock second and server CPU µs per call. */
type Run = { rate: number; cpuPerCall: number };

async function main() {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string', default: '2000' },
      concurrency: { type: 'string', default: '16' },
      rounds: { type: 'string', default: '9' },
    },
  });
  const calls = Number(values.calls);
  const concurrency = Number(values.concurrency);
  const rounds = Number(values.rounds);
  const dataDir = mkdtempSync(join(tmpdir(), 'kiln-bench-'));
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { dataDir, databaseUrl: process.env.SERVICE_DATABASE_URL },
  });
  const { url, token, engine } = await new Promise<{ url: string; token: string; engine: string }>(
    (resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    },
  );
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

  const unary = unaryCaller(url, agent);

  /** Microseconds of CPU the server thread has used so far. */
  const serverCpu = () =>
    new Promise<number>((resolve) => {
      worker.once('message', resolve);
      worker.postMessage('cpu');
    });

  /**
   * Runs `step` from `concurrency` loops until `total` calls are done: calls per wall-clock
   * second, and server CPU microseconds per call.
   */
  async function drive(
    total: number,
    callsPerStep: number,
    step: (i: number) => Promise<void>,
  ): Promise<Run> {
    let next = 0;
    const steps = Math.ceil(total / callsPerStep);
    const cpuBefore = await serverCpu();
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < steps) await step(next++);
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpuPerCall = ((await serverCpu()) - cpuBefore) / (steps * callsPerStep);
    return { rate: (steps * callsPerStep) / seconds, cpuPerCall };
  }

  const ping = async (i: number) => {
    await unary(
      'ping.v1.PingService/Ping',
      PingRequestSchema,
      PingResponseSchema,
      create(PingRequestSchema, { data: `runner-${i}` }),
    );
  };
  const labels = ['ubuntu-latest', 'self-hosted'];
  const registerAndDeclare = async (i: number) => {
    const { runner } = await unary(
      'runner.v1.RunnerService/Register',
      RegisterRequestSchema,
      RegisterResponseSchema,
      create(RegisterRequestSchema, {
        name: `bench-${i}`,
        token,
        version: 'v0.2.11',
        labels,
        capabilities: ['cancelling'],
      }),
    );
    if (runner === undefined) throw new Error('no runner in RegisterResponse');
    await unary(
      'runner.v1.RunnerService/Declare',
      DeclareRequestSchema,
      DeclareResponseSchema,
      create(DeclareRequestSchema, { version: 'v0.2.11', labels, capabilities: ['cancelling'] }),
      { 'x-runner-uuid': runner.uuid, 'x-runner-token': runner.token },
    );
  };

  try {
    // Warm up both paths (JIT, sockets, statement caches).
    await drive(Math.min(1000, calls), 1, ping);
    await drive(Math.min(1000, calls), 2, registerAndDeclare);
    // The two sides alternate in short pairs, the order swapping each round, and every figure is
    // the median of the pairs' ratios: a shared machine drifts by a factor of two over a minute,
    // which separate medians of each side would put into the ratio.
    const pairs: Array<{ ping: Run; register: Run }> = [];
    for (let round = 0; round < rounds; round++) {
      const pingFirst = round % 2 === 0;
      const first = await drive(calls, pingFirst ? 1 : 2, pingFirst ? ping : registerAndDeclare);
      const second = await drive(calls, pingFirst ? 2 : 1, pingFirst ? registerAndDeclare : ping);
      pairs.push(pingFirst ? { ping: first, register: second } : { ping: second, register: first });
    }
    const pingRate = median(pairs.map((pair) => pair.ping.rate));
    const registerRate = median(pairs.map((pair) => pair.register.rate));
    const pingCpu = median(pairs.map((pair) => pair.ping.cpuPerCall));
    const registerCpu = median(pairs.map((pair) => pair.register.cpuPerCall));
    const wall = median(pairs.map((pair) => pair.register.rate / pair.ping.rate));
    const cpu = median(pairs.map((pair) => pair.ping.cpuPerCall / pair.register.cpuPerCall));
    console.log(
      `engine ${engine}; ${calls} calls per run, ${concurrency} concurrent clients, ${rounds} alternating pairs, medians`,
    );
    console.log(
      `Ping                 ${pingRate.toFixed(0).padStart(7)} calls/s   server CPU ${pingCpu.toFixed(0).padStart(5)} µs/call`,
    );
    console.log(
      `Register + Declare   ${registerRate.toFixed(0).padStart(7)} calls/s   server CPU ${registerCpu.toFixed(0).padStart(5)} µs/call  (${(registerRate / 2).toFixed(0)} runners/s)`,
    );
    const spread = (ratios: number[]) => {
      const sorted = [...ratios].sort((a, b) => a - b);
      return `${sorted[0]?.toFixed(2)}–${sorted.at(-1)?.toFixed(2)}`;
    };
    console.log(
      `ratio, calls by wall clock:     ${wall.toFixed(2)}  (pairs ${spread(pairs.map((pair) => pair.register.rate / pair.ping.rate))}; target ≥ 0.5)`,
    );
    console.log(
      `ratio, calls by server CPU:     ${cpu.toFixed(2)}  (pairs ${spread(pairs.map((pair) => pair.ping.cpuPerCall / pair.register.cpuPerCall))}; target ≥ 0.5)`,
    );
    console.log(`ratio, runners: ${(wall / 2).toFixed(2)}  (one runner = Register + Declare)`);
    // Last line: the figures for bench/run.ts.
    console.log(
      JSON.stringify({
        figures: [
          {
            name: 'Register + Declare ÷ Ping, calls/s (wall clock)',
            target: '≥ 0.5',
            measured: Number(wall.toFixed(2)),
            unit: 'ratio',
            pass: wall >= 0.5,
          },
          {
            name: 'Ping ÷ Register + Declare, server CPU per call',
            target: '≥ 0.5',
            measured: Number(cpu.toFixed(2)),
            unit: 'ratio',
            pass: cpu >= 0.5,
          },
        ],
      }),
    );
  } finally {
    agent.destroy();
    worker.postMessage('close');
    await new Promise((resolve) => worker.once('message', resolve));
    await worker.terminate();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
