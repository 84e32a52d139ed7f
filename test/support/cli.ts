import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from './database.ts';
import { useForSuite } from './world.ts';

export const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
/** The `kiln` command, as npm links it. */
export const LAUNCHER = fileURLToPath(new URL('../../bin/kiln.js', import.meta.url));

export type CliResult = { code: number | null; stdout: string; stderr: string };

export type CliOptions = {
  /** Written to the command's stdin, which is then closed; without it stdin is /dev/null. */
  input?: string;
  /** The Node that runs the launcher; this process's (the project's Node 24 under npm) by default. */
  node?: string;
};

/** Runs `kiln …` through the launcher, as a user would, with a clean environment plus `env`. */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  options: CliOptions = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? process.execPath, [LAUNCHER, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdin?.end(options.input);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A Node older than 24 on PATH outside node_modules (the system's, which runs npm), or undefined:
 * the launcher must work there, where Kiln's TypeScript cannot run.
 */
export function olderSystemNode(): { path: string; version: string } | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((d) => !d.includes('node_modules'));
  for (const dir of [...dirs, '/usr/local/bin', '/usr/bin']) {
    const path = join(dir, 'node');
    if (!existsSync(path)) continue;
    const version = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim();
    const major = Number(/^v(\d+)\./.exec(version)?.[1]);
    if (major >= 20 && major < 24) return { path, version };
  }
  return undefined;
}

/**
 * Starts `kiln serve` through the launcher on `node` with exactly `env` (which should ask for
 * port 0), and resolves once it prints its listening line; rejects when it exits first.
 * `stdout` is what it has printed so far (the SSH line comes after). The caller stops the
 * process.
 */
export async function serveThroughLauncher(
  node: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; stdout: () => string }> {
  const child = spawn(node, [LAUNCHER, 'serve'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      out += chunk;
      const match = /^listening on (\S+)\n/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
  });
  return { child, url, stdout: () => out };
}

/** Where the suite's `kiln` commands keep their data, and how to point one at it. */
export type CliInstance = {
  /** A scratch directory; the instance's data lives in `data/` below it. */
  readonly dir: string;
  /** SERVICE_* settings for `runCli` (and `loadConfig`), with `extra` on top. */
  readonly env: Record<string, string>;
  /** An empty config file, for opening the same instance in-process with `loadConfig`. */
  readonly configFile: string;
};

/**
 * One instance for the suite's commands: a fresh data directory and database (a PostgreSQL one
 * under KILN_TEST_DATABASE_URL), dropped after the last test.
 */
export function useCliInstance(
  prefix: string,
  ready: (instance: CliInstance) => void | Promise<void>,
  extra: Record<string, string> = {},
): void {
  useForSuite(
    async () => {
      const database = await createTestDatabase();
      const dir = mkdtempSync(join(tmpdir(), prefix));
      const configFile = join(dir, 'empty.toml');
      writeFileSync(configFile, '');
      const env = {
        ...extra,
        SERVICE_DATA_DIR: join(dir, 'data'),
        SERVICE_LOG_LEVEL: 'silent',
        ...(database.url ? { SERVICE_DATABASE_URL: database.url } : {}),
      };
      return { database, instance: { dir, env, configFile } };
    },
    ({ database }) => database.drop(),
    ({ instance }) => ready(instance),
  );
}
