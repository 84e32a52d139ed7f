/**
 * Pushes and fetches that collide or break off: two pushes racing for one branch (one wins, the
 * other is rejected and must fetch first), and clients that disconnect in the middle of a pack,
 * pushing or cloning, by dying or by dropping the socket. Afterwards the server still answers,
 * no git process it started is left behind, no half-received objects linger, and the repository
 * passes `git fsck`.
 */
import { readdir, readlink } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { eventually } from '../support/eventually.ts';
import { GitClient, importSyntheticHistory, noise, repoUrl } from '../support/git.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { basic, makeRepo } from './fixtures.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;
/** A public repository holding ~40 MB of incompressible history. */
let big: { owner: string; name: string };
let bigTip: string;
/** A local repository with the same history, for pushes. */
let source: string;

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  ({ user: owner, token } = await kiln.make.userWithToken());
  source = await git.init();
  bigTip = await importSyntheticHistory(git, path.join(source, '.git'), {
    commits: 20,
    bytesPerCommit: 2 * 1024 * 1024,
  });
  big = await makeRepo(kiln, owner, { name: 'big' });
  await git.ok(['push', '-q', pushUrl(big), 'main'], { cwd: source, timeoutMs: 120_000 });
}, 120_000);
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

function pushUrl(repo: { owner: string; name: string }) {
  return repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'password' });
}
const repoDir = (repo: { owner: string; name: string }) =>
  path.join(kiln.app.dataDir, 'repositories', repo.owner.toLowerCase(), `${repo.name}.git`);

async function processesIn(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => '');
    if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(pid);
  }
  return found;
}

/** What must hold after any broken-off transfer. */
async function expectCleanAfterwards(repo: { owner: string; name: string }) {
  const dir = repoDir(repo);
  expect(await eventually(async () => (await processesIn(dir)).length === 0)).toBe(true);
  const leftovers = async () =>
    (await readdir(path.join(dir, 'objects'))).filter((entry) => entry.startsWith('incoming-'));
  expect(await eventually(async () => (await leftovers()).length === 0)).toBe(true);
  const fsck = await git.run(['--git-dir', dir, 'fsck', '--no-progress', '--no-dangling']);
  expect(fsck.code, fsck.stderr).toBe(0);
  const response = await fetch(
    `${kiln.url}/${repo.owner}/${repo.name}.git/info/refs?service=git-upload-pack`,
  );
  expect(response.status).toBe(200);
  await response.arrayBuffer();
}

/** Runs git until its progress output reaches `percent`% of `phase`, then SIGKILLs it. */
function runAndKill(args: string[], cwd: string, phase: string, percent: number) {
  return new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    const child = git.spawn(['-c', 'http.postBuffer=65536', ...args], { cwd, group: true });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const seen = [...stderr.matchAll(new RegExp(`${phase}:\\s+(\\d+)%`, 'g'))].at(-1);
      if (seen && Number(seen[1]) >= percent) git.killGroup(child);
    });
    child.stdout.resume();
    child.stdin.end();
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
}

describe('two pushes racing for one branch', () => {
  it.each([1, 2, 3])('lets exactly one win (round %i)', async () => {
    const repo = await makeRepo(kiln, owner, { autoInit: true });
    const [a, b] = await Promise.all([git.clone(pushUrl(repo)), git.clone(pushUrl(repo))]);
    // Big enough that both transfers overlap on the server.
    const shaA = await git.commit(a!, { 'a.bin': noise(3 * 1024 * 1024) }, 'from a');
    const shaB = await git.commit(b!, { 'b.bin': noise(3 * 1024 * 1024) }, 'from b');
    const [resultA, resultB] = await Promise.all([
      git.run(['push', 'origin', 'main'], { cwd: a! }),
      git.run(['push', 'origin', 'main'], { cwd: b! }),
    ]);
    const winners = [resultA, resultB].filter((result) => result.code === 0);
    expect(winners).toHaveLength(1);
    const loser = resultA.code === 0 ? resultB : resultA;
    expect(loser.stderr).toMatch(
      /non-fast-forward|fetch first|failed to update ref|cannot lock ref|incorrect old value/,
    );
    const main = (await git.ok(['ls-remote', pushUrl(repo), 'refs/heads/main'])).split('\t')[0];
    expect(main).toBe(resultA.code === 0 ? shaA : shaB);

    // The loser's second try is refused as a non-fast-forward, and goes through once rebased.
    const loserDir = resultA.code === 0 ? b! : a!;
    const retry = await git.fails(['push', 'origin', 'main'], { cwd: loserDir });
    expect(retry.stderr).toMatch(/non-fast-forward|fetch first/);
    await git.ok(['pull', '-q', '--rebase', 'origin', 'main'], { cwd: loserDir });
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: loserDir });
    await expectCleanAfterwards(repo);
  });
});

describe('clients that go away mid-pack', () => {
  it('survives a pushing client killed in the middle of its pack', async () => {
    const repo = await makeRepo(kiln, owner);
    const result = await runAndKill(
      ['push', '--progress', pushUrl(repo), 'main'],
      source,
      'Writing objects',
      30,
    );
    expect(result.signal).toBe('SIGKILL');
    await expectCleanAfterwards(repo);
    expect(await git.ok(['ls-remote', pushUrl(repo)])).toBe('');
    await git.ok(['push', '-q', pushUrl(repo), 'main'], { cwd: source, timeoutMs: 120_000 });
    expect(await git.ok(['ls-remote', pushUrl(repo), 'main'])).toBe(`${bigTip}\trefs/heads/main`);
  });

  it('survives a request whose socket closes after part of the pack', async () => {
    const repo = await makeRepo(kiln, owner);
    const { port } = new URL(kiln.url);
    const zero = '0'.repeat(40);
    const command = `${zero} ${bigTip} refs/heads/main\0report-status\n`;
    const pkt = `${(command.length + 4).toString(16).padStart(4, '0')}${command}0000`;
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /${repo.owner}/${repo.name}.git/git-receive-pack HTTP/1.1\r\n` +
            `Host: 127.0.0.1:${port}\r\n` +
            `Authorization: ${basic(token).authorization}\r\n` +
            'Content-Type: application/x-git-receive-pack-request\r\n' +
            'Transfer-Encoding: chunked\r\n\r\n',
        );
        const body = Buffer.concat([
          Buffer.from(pkt),
          Buffer.from('PACK\0\0\0\x02\0\0\0\x28'),
          noise(2 * 1024 * 1024),
        ]);
        socket.write(`${body.length.toString(16)}\r\n`);
        socket.write(body, () => setTimeout(() => socket.destroy(), 200));
      });
      socket.on('close', () => resolve());
      socket.on('error', () => {});
    });
    await expectCleanAfterwards(repo);
    expect(await git.ok(['ls-remote', pushUrl(repo)])).toBe('');
  });

  it('survives a cloning client killed in the middle of the download', async () => {
    const parent = await git.tempDir();
    const result = await runAndKill(
      ['clone', '--progress', repoUrl(kiln.url, big.owner, big.name), 'c'],
      parent,
      'Receiving objects',
      20,
    );
    expect(result.signal).toBe('SIGKILL');
    await expectCleanAfterwards(big);
    const dir = await git.clone(repoUrl(kiln.url, big.owner, big.name));
    expect(await git.ok(['rev-parse', 'HEAD'], { cwd: dir })).toBe(bigTip);
  });

  it('survives a fetch whose socket closes before it reads the answer', async () => {
    const { port } = new URL(kiln.url);
    const want = `want ${bigTip} side-band-64k ofs-delta\n`;
    const body = `${(want.length + 4).toString(16).padStart(4, '0')}${want}00000009done\n`;
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /${big.owner}/${big.name}.git/git-upload-pack HTTP/1.1\r\n` +
              `Host: 127.0.0.1:${port}\r\n` +
              'Content-Type: application/x-git-upload-pack-request\r\n' +
              `Content-Length: ${body.length}\r\n\r\n${body}`,
          );
          // Read a little of the pack, then hang up.
          socket.once('data', () => socket.destroy());
        });
        socket.on('close', () => resolve());
        socket.on('error', () => {});
      });
    }
    await expectCleanAfterwards(big);
  });
});
