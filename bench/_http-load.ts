/**
 * Shared by the HTTP benches (not a bench itself: bench/run.ts skips `_*.ts`): server processes
 * started as the `kiln` launcher starts Kiln, and load runs against them with autocannon that
 * report, besides the wall-clock rate, the server's CPU time per request.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cpuSoFar } from './_process-cpu.ts';
import { startEnv } from './_start-flags.ts';
import { median } from './_stats.ts';

export type Load = { rps: number; p99: number; errors: number; cpuUs: number };

type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
}) => Promise<{
  requests: { average: number };
  latency: { p99: number };
  errors: number;
  non2xx: number;
}>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Every process started here and not stopped yet, for a bench's final clean-up. */
export const children = new Set<ChildProcess>();

/** CPU time (user + system) a process has used, in microseconds, from /proc. */
export function cpuUs(child: { readonly pid?: number | undefined }): number {
  if (child.pid === undefined) throw new Error('the process has no pid (it never started)');
  return cpuSoFar(child.pid).own * 1000;
}

/** Resident memory of a process, in megabytes. */
export function rssMb(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/**
 * One load run. Besides the wall-clock rate, the server's CPU time per request: on a machine
 * shared with other work the wall clock mostly measures the neighbours, the CPU time far less.
 */
export async function load(
  server: ChildProcess,
  url: string,
  options: { seconds: number; connections: number; headers?: Record<string, string> },
): Promise<Load> {
  const before = cpuUs(server);
  const { seconds, connections, headers = {} } = options;
  const result = await autocannon({ url, connections, duration: seconds, headers });
  const requests = result.requests.average * seconds;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpuUs: (cpuUs(server) - before) / Math.max(requests, 1),
  };
}

/** Starts a process that prints `listening on URL`; resolves with the URL and the time it took. */
export async function startProcess(argv: string[], env: Record<string, string> = {}) {
  const started = performance.now();
  const child = spawn(process.execPath, argv, {
    cwd: join(import.meta.dirname, '..'),
    // Kiln and the bare server alike run as the `kiln` launcher runs Kiln: its flags and environment.
    env: { ...process.env, ...startEnv(), ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.add(child);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('no listening line within 30 s')), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening`)));
  });
  return { child, url, startMs: performance.now() - started, startCpuMs: cpuUs(child) / 1000 };
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  children.delete(child);
}

/** Each side's runs, summarized by their medians (errors summed). */
export function medians(seen: ReadonlyMap<string, readonly Load[]>): Map<string, Load> {
  return new Map(
    [...seen].map(([name, runs]) => [
      name,
      {
        rps: median(runs.map((run) => run.rps)),
        p99: median(runs.map((run) => run.p99)),
        errors: runs.reduce((sum, run) => sum + run.errors, 0),
        cpuUs: median(runs.map((run) => run.cpuUs)),
      },
    ]),
  );
}

/** Runs each side once per round, in alternating order, and keeps the medians. */
export async function alternate(
  rounds: number,
  sides: ReadonlyArray<{ name: string; run: () => Promise<Load> }>,
): Promise<Map<string, Load>> {
  const seen = new Map<string, Load[]>(sides.map((side) => [side.name, []]));
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) seen.get(side.name)?.push(await side.run());
  }
  return medians(seen);
}
