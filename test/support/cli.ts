import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
