import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * Renovate 39 as an outside client: installed once per version into a cache directory outside
 * node_modules, run by the system Node (Renovate 39 refuses Node 24, which npm scripts put first
 * on PATH), with a clean environment, its own HOME and its state in a temp directory.
 */

export const RENOVATE_VERSION = '39.264.1';

/** A Node runtime Renovate 39 supports, found outside the project's node_modules. */
export type Runtime = {
  readonly node: string;
  readonly npm: string;
  readonly version: string;
  /** PATH without the project's node_modules/.bin entries, the runtime's directory first. */
  readonly path: string;
};

/** Renovate 39 needs Node 20.15.1+ or 22.11+. */
function supported(version: string): boolean {
  const match = /^v(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!match) return false;
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
  if (major === 20) return minor > 15 || (minor === 15 && patch >= 1);
  return major === 22 && minor >= 11;
}

function outsideProject(dir: string): boolean {
  return dir !== '' && !dir.split(path.sep).includes('node_modules');
}

/** The first `node` on PATH outside node_modules that Renovate 39 runs on, or why there is none. */
export function findSystemRuntime(): Runtime | { readonly missing: string } {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(outsideProject);
  const seen: string[] = [];
  for (const dir of dirs) {
    const node = path.join(dir, 'node');
    if (!existsSync(node)) continue;
    let version: string;
    try {
      version = execFileSync(node, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
    } catch {
      continue;
    }
    seen.push(`${node} ${version}`);
    if (!supported(version)) continue;
    const npmDir = [dir, ...dirs].find((candidate) => existsSync(path.join(candidate, 'npm')));
    if (!npmDir) continue;
    const rest = dirs.filter((other) => other !== dir);
    return {
      node,
      npm: path.join(npmDir, 'npm'),
      version,
      path: [dir, ...rest].join(path.delimiter),
    };
  }
  return {
    missing: `no Node 20.15.1+ or 22.11+ with npm on PATH outside node_modules (found: ${
      seen.join(', ') || 'none'
    })`,
  };
}

/** npm settings passed on to the child npm: where packages come from and how to get there. */
const NPM_SETTING =
  /^npm_config_(.*registry.*|proxy|https_proxy|noproxy|cafile|strict_ssl|userconfig|globalconfig)$/i;

/**
 * The environment of a child tool: the caller's, minus what npm scripts and the test runner
 * inject (npm_* values other than registry and network settings, NODE_OPTIONS, vitest markers),
 * with PATH pointing at the system Node.
 */
export function cleanEnv(runtime: Runtime, extra: Record<string, string> = {}) {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^npm_/i.test(key) && !NPM_SETTING.test(key)) continue;
    if (/^(NODE_OPTIONS|NODE_ENV|VITEST.*|TEST)$/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, PATH: runtime.path, ...extra };
}

/** The npm registry the npm client is configured with: Renovate looks packages up only there. */
export function npmRegistry(runtime: Runtime): string {
  const registry = execFileSync(runtime.npm, ['config', 'get', 'registry'], {
    encoding: 'utf8',
    env: cleanEnv(runtime),
    timeout: 60_000,
  }).trim();
  return registry.endsWith('/') ? registry : `${registry}/`;
}

function cacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return path.join(base, 'kiln-test', `renovate-${RENOVATE_VERSION}`);
}

function entryOf(dir: string): string {
  return path.join(dir, 'node_modules', 'renovate', 'dist', 'renovate.js');
}

function installed(dir: string): boolean {
  const manifest = path.join(dir, 'node_modules', 'renovate', 'package.json');
  if (!existsSync(entryOf(dir)) || !existsSync(manifest)) return false;
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown };
  return version === RENOVATE_VERSION;
}

/**
 * Renovate's entry script, installed on first use with the system npm. The install goes to a
 * scratch directory that is renamed into place only when complete, so an interrupted install
 * never leaves a half-filled cache behind. Install scripts are skipped: the optional native
 * helpers they build would fetch from outside the npm registry, and Renovate runs without them.
 */
export async function installRenovate(runtime: Runtime): Promise<string> {
  const target = cacheRoot();
  if (installed(target)) return entryOf(target);
  await mkdir(path.dirname(target), { recursive: true });
  const scratch = await mkdtemp(`${target}.partial-`);
  try {
    await writeFile(
      path.join(scratch, 'package.json'),
      JSON.stringify({ name: 'kiln-renovate-cache', private: true }),
    );
    const result = await run(
      runtime.npm,
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', `renovate@${RENOVATE_VERSION}`],
      { cwd: scratch, env: cleanEnv(runtime), timeoutMs: 9 * 60_000 },
    );
    if (result.code !== 0) {
      throw new Error(`npm install renovate@${RENOVATE_VERSION} failed:\n${result.output}`);
    }
    await rm(target, { recursive: true, force: true });
    await rename(scratch, target).catch(async (error: unknown) => {
      // Another run finished first: use its copy.
      if (!installed(target)) throw error;
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  if (!installed(target)) throw new Error(`renovate ${RENOVATE_VERSION} missing after install`);
  return entryOf(target);
}

type Ran = { readonly code: number | null; readonly output: string };

function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

/** One finished Renovate run: exit code and its whole log (debug level, human format). */
export type RenovateRun = Ran & {
  /** The last lines of the log, for failure messages. */
  tail(lines?: number): string;
};

/**
 * Runs Renovate once with `config` as its global config file, in `workDir` (config, HOME, base
 * and cache directories all live there).
 */
export async function runRenovate(
  runtime: Runtime,
  entry: string,
  workDir: string,
  config: Record<string, unknown>,
  timeoutMs = 150_000,
): Promise<RenovateRun> {
  const home = path.join(workDir, 'home');
  await mkdir(home, { recursive: true });
  const configFile = path.join(workDir, 'config.json');
  await writeFile(configFile, JSON.stringify(config, null, 2));
  const noProxy = ['127.0.0.1', 'localhost', process.env.NO_PROXY ?? process.env.no_proxy ?? '']
    .filter(Boolean)
    .join(',');
  const env = cleanEnv(runtime, {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    RENOVATE_CONFIG_FILE: configFile,
    RENOVATE_BASE_DIR: path.join(workDir, 'base'),
    RENOVATE_CACHE_DIR: path.join(workDir, 'cache'),
    LOG_LEVEL: 'debug',
  });
  const result = await run(runtime.node, [entry], { cwd: workDir, env, timeoutMs });
  await writeFile(path.join(workDir, `run-${Date.now()}.log`), result.output);
  return {
    ...result,
    tail(lines = 80) {
      return result.output.split('\n').slice(-lines).join('\n');
    },
  };
}
