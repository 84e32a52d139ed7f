import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';

/**
 * Kiln as a separate process (`node src/main.ts serve`), for what an in-process server cannot
 * show: SIGKILL in the middle of a push, and the server's own memory use.
 */

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export type ServerProcess = {
  /** `http://127.0.0.1:PORT`, read from the `listening on` line. */
  readonly url: string;
  readonly pid: number;
  /** Resolves when the process has exited, however it ended. */
  readonly exited: Promise<void>;
  /** SIGKILL: no draining, no cleanup, like a power cut for this process. */
  kill(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** Its log so far (stderr, at the configured level; the last 64 kB). */
  log(): string;
};

/** The environment every command of one Kiln instance shares (data dir, database, logging). */
export function serverEnv(dataDir: string, databaseUrl?: string): Record<string, string> {
  return {
    SERVICE_DATA_DIR: dataDir,
    SERVICE_HTTP_HOST: '127.0.0.1',
    SERVICE_HTTP_PORT: '0',
    SERVICE_SSH_PORT: '0',
    SERVICE_LOG_LEVEL: process.env.KILN_TEST_LOG_LEVEL ?? 'error',
    SERVICE_PROTECT_ENABLED: 'false',
    ...(databaseUrl ? { SERVICE_DATABASE_URL: databaseUrl } : {}),
  };
}

/** What the Kiln processes of one test file share: a data dir, a database and one user. */
export type Instance = {
  /** A fresh temporary directory holding the data dir; the processes' working directory. */
  readonly root: string;
  readonly dataDir: string;
  readonly env: Record<string, string>;
  /** A token of the one user, made with the CLI. */
  readonly token: string;
  /** Drops the database and removes the directory. */
  dispose(): Promise<void>;
};

export async function prepareInstance(prefix: string, owner: string): Promise<Instance> {
  const root = await mkdtemp(path.join(tmpdir(), prefix));
  const dataDir = path.join(root, 'data');
  const database = await createTestDatabase();
  const env = serverEnv(dataDir, database.url);
  return {
    root,
    dataDir,
    env,
    token: await cliUserWithToken(env, owner),
    async dispose() {
      await database.drop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Starts `serve` and waits for its `listening on` line (at most `timeoutMs`). */
export function startServerProcess(
  env: Record<string, string>,
  options: { cwd: string; timeoutMs?: number; nodeArgs?: readonly string[] },
): Promise<ServerProcess> {
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(
    process.execPath,
    // No --config: the default ./service.toml is optional, and the cwd has none.
    [...(options.nodeArgs ?? []), MAIN, 'serve'],
    {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-65_536);
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in time:\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    const early = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${stderr}`));
    };
    child.once('exit', early);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.off('exit', early);
      resolve({
        url: match[1]!,
        pid: child.pid!,
        exited,
        async kill() {
          child.kill('SIGKILL');
          await exited;
        },
        async stop() {
          child.kill('SIGTERM');
          await exited;
        },
        log: () => stderr,
      });
    });
  });
}

/** A user and a token made with the CLI against the same data dir and database. */
export async function cliUserWithToken(
  env: Record<string, string>,
  handle: string,
): Promise<string> {
  const created = await runCli(
    [
      'user',
      'create',
      '--username',
      handle,
      '--email',
      `${handle}@example.test`,
      '--password',
      'correct horse battery',
    ],
    env,
  );
  if (created.code !== 0) throw new Error(`user create failed: ${created.stderr}`);
  const token = await runCli(['token', 'create', '--username', handle, '--name', 'tests'], env);
  if (token.code !== 0) throw new Error(`token create failed: ${token.stderr}`);
  return token.stdout.trim();
}

/** Resident memory of a process in bytes (Linux: VmRSS of /proc/PID/status), or undefined. */
export async function residentBytes(pid: number): Promise<number | undefined> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : undefined;
}
