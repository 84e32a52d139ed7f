import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Unavailable } from '../domain/errors.ts';
import { gitSpawnerPid, runGit, spawnGit } from './command.ts';
import { signalGroup } from './git-child.ts';
import { GitError } from './git-error.ts';
import { GitSpawner } from './spawner.ts';

/** A git command that runs a shell command (git's own aliases), e.g. one that sleeps. */
const alias = (command: string) => ['-c', `alias.x=!${command}`, 'x'];

/** Whether a process group still has a live member (zombies left to be reaped do not count). */
function groupAlive(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces, so split after its closing bracket.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

async function gone(pid: number, withinMs = 5_000): Promise<boolean> {
  const end = Date.now() + withinMs;
  while (Date.now() < end) {
    if (!groupAlive(pid)) return true;
    await sleep(50);
  }
  return false;
}

const saved = process.env.KILN_GIT_SPAWNER;
afterAll(() => {
  if (saved === undefined) delete process.env.KILN_GIT_SPAWNER;
  else process.env.KILN_GIT_SPAWNER = saved;
});

describe.each([
  ['through the spawner', '1'],
  ['directly', '0'],
])('git started %s', (_how, flag) => {
  beforeAll(() => {
    process.env.KILN_GIT_SPAWNER = flag;
  });

  it('reports exit codes and stderr', async () => {
    const error = await runGit(alias('echo oops >&2; exit 5')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect(error).toMatchObject({ exitCode: 5, stderr: 'oops' });
    const ok = await runGit(alias('echo out; echo err >&2; exit 3'), { okExitCodes: [3] });
    expect(ok).toMatchObject({ exitCode: 3, stderr: 'err' });
    expect(ok.stdout.toString()).toBe('out\n');
  });

  it('feeds stdin and streams large output whole', async () => {
    const input = Buffer.alloc(3_000_000, 'k');
    const { stdout } = await runGit(['hash-object', '--stdin'], { input });
    const direct = await runGit(['hash-object', '--stdin'], { input });
    expect(stdout.toString()).toBe(direct.stdout.toString());
    const proc = spawnGit(alias('head -c 20000000 /dev/zero'));
    proc.stdin.end();
    let bytes = 0;
    proc.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    await proc.done;
    expect(bytes).toBe(20_000_000);
  });

  it('kills git and what it started on time-out and on abort', async () => {
    const timed = spawnGit(alias('sleep 30'), { timeoutMs: 300 });
    await expect(timed.done).rejects.toBeInstanceOf(Unavailable);
    expect(await gone(timed.pid as number)).toBe(true);
    const controller = new AbortController();
    const aborted = spawnGit(alias('sleep 30'), { signal: controller.signal });
    await sleep(200);
    controller.abort();
    await expect(aborted.done).rejects.toThrow(/was aborted/);
    expect(await gone(aborted.pid as number)).toBe(true);
  });

  it('fails to start in a directory that does not exist', async () => {
    await expect(runGit(['version'], { cwd: '/nonexistent/dir' })).rejects.toThrow(
      /could not start/,
    );
  });

  it('writes straight into a socket with stdoutTo', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const client = connect(port, '127.0.0.1');
    const [accepted] = (await once(server, 'connection')) as [Socket];
    const received: Buffer[] = [];
    client.on('data', (chunk: Buffer) => received.push(chunk));
    const proc = spawnGit(alias('head -c 1000000 /dev/zero; echo end'), { stdoutTo: accepted });
    proc.stdin.end();
    await proc.done;
    accepted.end('after');
    await once(client, 'end');
    const text = Buffer.concat(received).toString();
    expect(text.length).toBe(1_000_000 + 'end\n'.length + 'after'.length);
    expect(text.endsWith('end\nafter')).toBe(true);
    client.destroy();
    server.close();
  });
});

describe('the spawner', () => {
  beforeAll(() => {
    process.env.KILN_GIT_SPAWNER = '1';
  });
  afterEach(() => {
    delete process.env.KILN_GIT_SPAWNER;
  });

  it('starts git from a helper, not from this process', async () => {
    // git runs the alias through a shell, whose parent is git, whose parent is the helper.
    const { stdout } = await runGit(alias('cat /proc/$PPID/status'));
    const helper = gitSpawnerPid();
    expect(helper).toBeDefined();
    expect(helper).not.toBe(process.pid);
    expect(stdout.toString()).toMatch(new RegExp(`^PPid:\\s+${helper}$`, 'm'));
  });

  it('starts git at a lower priority than the server', async () => {
    const { stdout } = await runGit(alias('cat /proc/$$/stat'));
    const stat = stdout.toString();
    // Field 19 of stat is the niceness; comm may hold spaces, so split after its bracket.
    const niceness = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    expect(niceness).toBeGreaterThan(0);
  });

  it('fails the commands of a helper that dies, and starts a new one for the next', async () => {
    await runGit(['version']);
    const first = gitSpawnerPid() as number;
    const proc = spawnGit(alias('sleep 30'));
    await sleep(300);
    process.kill(first, 'SIGKILL');
    await expect(proc.done).rejects.toThrow(/the git spawner stopped/);
    expect(await gone(proc.pid as number)).toBe(true);
    const { stdout } = await runGit(['version']);
    expect(stdout.toString()).toMatch(/^git version/);
    expect(gitSpawnerPid()).not.toBe(first);
  });

  it('leaves no git behind when the server is killed', async () => {
    const script = fileURLToPath(new URL('./spawner-orphan.fixture.ts', import.meta.url));
    const server = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(server.stdout, 'data')) as [Buffer];
    const gitPids = line.toString().trim().split(' ').map(Number);
    expect(gitPids).toHaveLength(5);
    server.kill('SIGKILL');
    for (const pid of gitPids) expect(await gone(pid)).toBe(true);
  }, 20_000);

  it('starts git directly when the helper cannot start', async () => {
    const spawner = new GitSpawner({ script: '/nonexistent/spawner.ts' });
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const reads = ['first', 'second'].map(async (word) => {
      const child = spawner.start({ args: alias(`echo ${word}`), cwd: undefined, env });
      child.stdin.end();
      const chunks: Buffer[] = [];
      child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
      const end = await child.ended;
      signalGroup(child.pid, 'SIGKILL');
      return { end, text: Buffer.concat(chunks).toString() };
    });
    for (const [i, read] of (await Promise.all(reads)).entries()) {
      expect(read.end).toMatchObject({ code: 0, started: true });
      expect(read.text).toBe(`${['first', 'second'][i]}\n`);
    }
    expect(spawner.pid).toBeUndefined();
  });
});
