/**
 * The `kiln` launcher (bin/kiln.js): it runs from a Node older than 24 (the system's, which runs
 * npm), starts Kiln on the bundled Node 24 with the shipped memory settings, passes signals on
 * and exits as Kiln does; on Node 24 it becomes Kiln itself, one process. And a password typed
 * at the prompt is never echoed (through a pseudo-terminal, `script` from util-linux).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import {
  LAUNCHER,
  olderSystemNode,
  runCli,
  serveThroughLauncher,
  useCliInstance,
} from '../support/cli.ts';

const older = olderSystemNode();
const hasScript = spawnSync('script', ['--version']).status === 0;

let env: Record<string, string>;
let dir: string;
useCliInstance(
  'kiln-launcher-',
  (instance) => {
    ({ env, dir } = instance);
  },
  { PATH: process.env.PATH ?? '', SERVICE_HTTP_PORT: '0', SERVICE_SSH_PORT: '0' },
);

/** Starts `kiln serve` with `node` and resolves once it prints its listening line. */
const serve = (node: string) => serveThroughLauncher(node, env);

function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
}

/** What /proc says about a process: its command line and environment, word by word. */
function proc(pid: number) {
  const words = (name: string) => readFileSync(`/proc/${pid}/${name}`, 'utf8').split('\0');
  return { argv: words('cmdline'), environ: words('environ') };
}

/** The pids of a process's children. */
function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text === '' ? [] : text.split(' ').map(Number);
}

function expectShippedSettings(pid: number) {
  const { argv, environ } = proc(pid);
  expect(argv).toEqual(
    expect.arrayContaining(['--max-semi-space-size=2', '--initial-old-space-size=64', '--import']),
  );
  expect(argv.some((word) => word.endsWith('src/start-up.js'))).toBe(true);
  expect(argv.some((word) => word.endsWith('src/main.ts'))).toBe(true);
  expect(environ).toContain('MALLOC_ARENA_MAX=2');
}

describe.skipIf(!older)(
  `kiln launcher on ${older?.version ?? 'an older Node (none found)'}`,
  () => {
    const node = older?.path ?? '';

    it('answers help and usage errors with Kiln’s exit codes', async () => {
      const help = await runCli(['--help'], env, { node });
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('user create');
      const unknown = await runCli(['frobnicate'], env, { node });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/^kiln: unknown command/);
    });

    it('runs Kiln on the bundled Node with the shipped settings and passes SIGTERM on', async () => {
      const { child, url } = await serve(node);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const [kiln] = childrenOf(child.pid ?? 0);
      expect(kiln).toBeDefined();
      expectShippedSettings(kiln ?? 0);
      const version = spawnSync(proc(kiln ?? 0).argv[0] ?? '', ['--version'], { encoding: 'utf8' });
      expect(version.stdout).toMatch(/^v2[4-9]\./);
      const exit = exited(child);
      child.kill('SIGTERM');
      expect(await exit).toEqual({ code: 0, signal: null });
    });

    it('run as a command on PATH, hands itself to the bundled Node at once: one process', async () => {
      const bin = mkdtempSync(join(tmpdir(), 'kiln-path-'));
      symlinkSync(LAUNCHER, join(bin, 'kiln'));
      // The only `node` on this PATH is the older one.
      const path = [bin, dirname(node), '/usr/bin', '/bin'].join(':');
      const child = spawn('kiln', ['serve'], {
        env: { ...env, PATH: path },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout?.on('data', (chunk) => {
          out += chunk;
          if (out.includes('\n')) resolve(out);
        });
        child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
      });
      expect(line).toMatch(/^listening on /);
      expectShippedSettings(child.pid ?? 0);
      expect(childrenOf(child.pid ?? 0)).toEqual([]);
      const exit = exited(child);
      child.kill('SIGTERM');
      expect(await exit).toEqual({ code: 0, signal: null });
    });

    it('passes SIGINT on, and dies of the signal that killed Kiln', async () => {
      const first = await serve(node);
      const firstExit = exited(first.child);
      first.child.kill('SIGINT');
      expect(await firstExit).toEqual({ code: 0, signal: null });
      const second = await serve(node);
      const [kiln] = childrenOf(second.child.pid ?? 0);
      const secondExit = exited(second.child);
      process.kill(kiln ?? 0, 'SIGKILL');
      expect(await secondExit).toEqual({ code: null, signal: 'SIGKILL' });
    });
  },
);

describe('kiln launcher on the bundled Node', () => {
  it('becomes Kiln: one process with the shipped settings', async () => {
    const { child } = await serve(process.execPath);
    expectShippedSettings(child.pid ?? 0);
    expect(childrenOf(child.pid ?? 0)).toEqual([]);
    const exit = exited(child);
    child.kill('SIGTERM');
    expect(await exit).toEqual({ code: 0, signal: null });
  });
});

describe.skipIf(!hasScript)('password prompt (needs `script` from util-linux)', () => {
  it('asks twice on a terminal and never echoes what is typed', async () => {
    const secret = 'typed-at-the-prompt';
    const command = `${process.execPath} ${LAUNCHER} user create --username tty --email tty@example.test`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let screen = '';
    let answered = 0;
    child.stdout?.on('data', (chunk) => {
      screen += chunk;
      // Type only once each question shows, as a person would.
      const asked = (screen.match(/Password( \(again\))?: /g) ?? []).length;
      if (asked > answered) {
        answered += 1;
        child.stdin?.write(`${secret}\r`);
      }
    });
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(screen).toContain('created user tty');
    expect(screen).not.toContain(secret);
    writeFileSync(join(dir, 'empty.toml'), '');
    const app = await createApp(loadConfig({ file: join(dir, 'empty.toml'), env }));
    try {
      expect(await app.services.users.authenticate('tty', secret)).toBeDefined();
    } finally {
      await app.close();
    }
  });
});
