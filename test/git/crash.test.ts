/**
 * SIGKILL during a push. Kiln runs as its own process (`node src/main.ts serve`); a large push
 * (two refs, tens of megabytes of incompressible objects) is cut off by killing the server at
 * several points of the transfer. After a restart on the same data dir the repository must pass
 * `git fsck`, each ref must be either where it was or where the push wanted it, nothing git
 * started may be left running, and the same push must then go through.
 */
import { readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { GitClient, importSyntheticHistory, repoUrl } from '../support/git.ts';
import { auth } from '../support/http.ts';
import {
  type Instance,
  prepareInstance,
  type ServerProcess,
  startServerProcess,
} from './server-process.ts';

const OWNER = 'crash-owner';
const COMMITS = 40;
const BYTES_PER_COMMIT = 2 * 1024 * 1024;

let instance: Instance | undefined;
let root: string;
let dataDir: string;
let env: Record<string, string>;
let git: GitClient;
let token: string;
let work: string;
let base: string;
let tip: string;
let server: ServerProcess | undefined;

beforeAll(async () => {
  instance = await prepareInstance('kiln-crash-', OWNER);
  ({ root, dataDir, env, token } = instance);
  git = await GitClient.create();
  work = await git.init();
  tip = await importSyntheticHistory(git, path.join(work, '.git'), {
    commits: COMMITS,
    bytesPerCommit: BYTES_PER_COMMIT,
  });
  base = await git.ok(['rev-parse', `main~${COMMITS - 1}`], { cwd: work });
}, 120_000);

// A failed test must not leave its server running.
afterEach(async () => {
  await server?.kill();
  server = undefined;
});

afterAll(async () => {
  await git?.dispose();
  await instance?.dispose();
});

const repoDir = (name: string) => path.join(dataDir, 'repositories', OWNER, `${name}.git`);

async function createRepo(url: string, name: string): Promise<void> {
  const response = await fetch(`${url}/api/v1/user/repos`, {
    method: 'POST',
    headers: { ...auth.token(token), 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  expect(response.status).toBe(201);
}

/** Pids of processes working inside `dir` (git children orphaned by the kill). */
async function processesIn(dir: string): Promise<number[]> {
  const found: number[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(Number(pid));
  }
  return found;
}

/**
 * Pushes main (fast-forward from `base` to `tip`) and a new branch `big`, and SIGKILLs the server
 * once git reports `percent`% of the objects written. Returns git's exit code.
 */
function pushAndKill(url: string, percent: number): Promise<number | null> {
  return new Promise((resolve) => {
    const child = git.spawn(['push', '--progress', url, 'main', 'main:refs/heads/big'], {
      cwd: work,
    });
    let killed = false;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const written = [...stderr.matchAll(/Writing objects:\s+(\d+)%/g)].at(-1);
      if (!killed && written && Number(written[1]) >= percent) {
        killed = true;
        void server!.kill();
      }
    });
    child.stdout.resume();
    child.stdin.end();
    child.on('close', (code) => resolve(code));
  });
}

describe('SIGKILL during a push', () => {
  it.each([5, 50, 100])(
    'leaves a valid repository when killed at %i percent of the pack',
    async (percent) => {
      const name = `killed-at-${percent}`;
      server = await startServerProcess(env, { cwd: root });
      await createRepo(server.url, name);
      let url = repoUrl(server.url, OWNER, name, { token, as: 'password' });
      await git.ok(['push', '-q', url, `${base}:refs/heads/main`], { cwd: work });

      const code = await pushAndKill(url, percent);
      // Cut before the pack was complete, the push cannot have succeeded.
      if (percent < 100) expect(code).not.toBe(0);
      await server.exited;
      // git's own processes notice the closed pipes and exit without the server.
      expect(
        await eventually(async () => (await processesIn(repoDir(name))).length === 0, 20_000),
      ).toBe(true);

      server = await startServerProcess(env, { cwd: root });
      url = repoUrl(server.url, OWNER, name, { token, as: 'password' });
      const fsck = await git.run([
        '--git-dir',
        repoDir(name),
        'fsck',
        '--no-progress',
        '--no-dangling',
        '--strict',
      ]);
      expect(fsck.code, fsck.stderr).toBe(0);
      expect(fsck.stdout + fsck.stderr).not.toMatch(/error|missing|broken|corrupt/i);

      const heads = new Map(
        (await git.ok(['ls-remote', '--heads', url]))
          .split('\n')
          .filter(Boolean)
          .map((line) => line.split('\t').reverse() as [string, string]),
      );
      expect([base, tip]).toContain(heads.get('refs/heads/main'));
      expect([undefined, tip]).toContain(heads.get('refs/heads/big'));
      if (percent < 100) expect(heads.get('refs/heads/main')).toBe(base);

      // The same push goes through after the restart, and leaves a clean repository.
      await git.ok(['push', '-q', url, 'main', 'main:refs/heads/big'], {
        cwd: work,
        timeoutMs: 120_000,
      });
      expect(await git.ok(['ls-remote', '--heads', url])).toBe(
        `${tip}\trefs/heads/big\n${tip}\trefs/heads/main`,
      );
      const after = await git.run([
        '--git-dir',
        repoDir(name),
        'fsck',
        '--no-progress',
        '--no-dangling',
      ]);
      expect(after.code, after.stderr).toBe(0);
      const incoming = (await readdir(path.join(repoDir(name), 'objects'))).filter((entry) =>
        entry.startsWith('incoming-'),
      );
      expect(incoming).toEqual([]);
    },
    180_000,
  );
});
