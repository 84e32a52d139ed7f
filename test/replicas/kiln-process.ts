/**
 * Kiln as an operator runs it: `node src/main.ts serve` in a subprocess on 127.0.0.1, port 0,
 * against a data dir and a database that outlive it. The replica, crash and hostile-input suites
 * use it to run several processes over one deployment, to SIGKILL a process mid-operation and
 * start another on the same state, and to read a server's memory from outside.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import { MAIN } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { Factories } from '../support/factories.ts';

export type KilnProcess = {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Everything the process wrote to stdout so far (its listening lines). */
  stdout(): string;
  /** Resident set size in bytes, read from /proc. */
  rssBytes(): number;
  /** SIGTERM and wait for the exit (in-flight requests drain). */
  stop(): Promise<void>;
  /** SIGKILL and wait: the process gets no chance to clean up. */
  kill(): Promise<void>;
};

/** One data dir and one database shared by every process of a deployment. */
export type Deployment = {
  readonly root: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  /** The environment every process of this deployment starts with. */
  env(extra?: Record<string, string>): Record<string, string>;
  /**
   * Starts one more `serve` process on the shared state, with `nodeArgs` before the script
   * (a bench passes the launcher's flags and preload, bench/_start-flags.ts).
   */
  start(extra?: Record<string, string>, nodeArgs?: readonly string[]): Promise<KilnProcess>;
  /**
   * Kiln built in this process on the shared state, not listening: for making test data through
   * the domain services and for reading what the servers left behind.
   */
  open(extra?: Record<string, string>): Promise<{ app: App; make: Factories }>;
  /** Stops every process started through `start`, closes opened apps, drops the database. */
  dispose(): Promise<void>;
};

async function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => child.once('exit', resolve));
}

/** Starts `node [nodeArgs] src/main.ts serve` with exactly `env` (plus PATH and HOME). */
export async function startKilnProcess(
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<KilnProcess> {
  const child = spawn(process.execPath, [...nodeArgs, MAIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      SERVICE_HTTP_HOST: '127.0.0.1',
      SERVICE_HTTP_PORT: '0',
      SERVICE_SSH_PORT: '0',
      SERVICE_LOG_LEVEL: 'error',
      ...env,
    },
    cwd: tmpdir(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    // Keep the tail only: a long run must not grow the test's memory without bound.
    stderr = (stderr + chunk).slice(-64_000);
  });
  let stdout = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kiln did not start within 30 s:\n${stderr}`));
    }, 30_000);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`kiln exited (${code ?? signal}) before listening:\n${stderr}`));
    });
  });
  const pid = child.pid ?? 0;
  return {
    url,
    pid,
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    rssBytes() {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const match = /VmRSS:\s+(\d+) kB/.exec(status);
      return match?.[1] ? Number(match[1]) * 1024 : 0;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await waitForExit(child);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await waitForExit(child);
    },
  };
}

/**
 * A fresh deployment: a temp root holding the data dir, and a database of its own (PostgreSQL
 * when KILN_TEST_DATABASE_URL names one, else the SQLite file in the data dir).
 */
export async function createDeployment(
  base: Record<string, string> = {},
  database?: TestDatabase,
): Promise<Deployment> {
  const root = mkdtempSync(join(tmpdir(), 'kiln-deploy-'));
  const dataDir = join(root, 'data');
  const db = database ?? (await createTestDatabase());
  const processes: KilnProcess[] = [];
  const apps: App[] = [];
  const env = (extra: Record<string, string> = {}) => ({
    SERVICE_DATA_DIR: dataDir,
    ...(db.url ? { SERVICE_DATABASE_URL: db.url } : {}),
    ...base,
    ...extra,
  });
  return {
    root,
    dataDir,
    databaseUrl: db.url,
    env,
    async start(extra, nodeArgs) {
      const kiln = await startKilnProcess(env(extra), nodeArgs);
      processes.push(kiln);
      return kiln;
    },
    async open(extra) {
      const configFile = join(root, 'empty.toml');
      writeFileSync(configFile, '');
      const app = await createApp(
        loadConfig({
          file: configFile,
          env: {
            SERVICE_LOG_LEVEL: 'silent',
            // This in-test instance must not take part in the sweeps the servers are tested on.
            SERVICE_CI_ZOMBIE_RECLAIM_INTERVAL: '1d',
            ...env(extra),
          },
        }),
      );
      apps.push(app);
      return { app, make: new Factories(app) };
    },
    async dispose() {
      await Promise.all(processes.map((kiln) => kiln.kill()));
      for (const app of apps) await app.close();
      await db.drop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
