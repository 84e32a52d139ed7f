/**
 * `kiln serve` with SSH as an operator runs it: the `ssh listening on` line after the HTTP one,
 * host keys made once in the data directory (mode 0600) and served unchanged after a restart
 * and by a second replica on the same data directory, and a clone through either.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDeployment, type Deployment, type KilnProcess } from '../replicas/kiln-process.ts';
import { postgresAdminUrl } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { GitClient, noise } from '../support/git.ts';
import { makeKeyPair, removeKeyPairs, sshGitEnv, sshUrl } from './ssh-support.ts';

let deployment: Deployment;
let git: GitClient;
beforeAll(async () => {
  deployment = await createDeployment({ SERVICE_LOG_LEVEL: 'silent' });
  git = await GitClient.create();
});
afterAll(async () => {
  await deployment?.dispose();
  await git?.dispose();
  removeKeyPairs();
});

/** The SSH port a process printed, once it has printed it. */
async function sshPortOf(kiln: KilnProcess): Promise<number> {
  const line = /^ssh listening on 127\.0\.0\.1:(\d+)$/m;
  await eventually(async () => line.test(kiln.stdout()), 30_000);
  const lines = kiln.stdout().split('\n');
  expect(lines[0]).toMatch(/^listening on http:/);
  expect(lines[1]).toMatch(line);
  return Number(line.exec(kiln.stdout())?.[1]);
}

/** The host keys a server offers, as OpenSSH's `ssh-keyscan` reads them. */
function hostKeys(port: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const scan = spawn('ssh-keyscan', ['-p', String(port), '-t', 'ed25519,rsa', '127.0.0.1'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    scan.stdout.on('data', (chunk) => {
      out += chunk;
    });
    scan.on('error', reject);
    scan.on('close', () =>
      resolve(
        out
          .split('\n')
          .filter((line) => line && !line.startsWith('#'))
          .map((line) => line.split(' ').slice(1).join(' '))
          .sort(),
      ),
    );
  });
}

let keys: string[];
let running: KilnProcess;

it('makes its host keys once and serves them unchanged after a restart', async () => {
  const first = await deployment.start();
  keys = await hostKeys(await sshPortOf(first));
  expect(keys.map((key) => key.split(' ')[0])).toEqual(['ssh-ed25519', 'ssh-rsa']);
  for (const file of ['ssh_host_ed25519_key', 'ssh_host_rsa_key']) {
    expect(statSync(join(deployment.dataDir, 'ssh', file)).mode & 0o777).toBe(0o600);
  }
  await first.stop();
  running = await deployment.start();
  expect(await hostKeys(await sshPortOf(running))).toEqual(keys);
  await expectClone(running);
}, 120_000);

// SQLite is one process's: replicas share a PostgreSQL database.
it.skipIf(!postgresAdminUrl)(
  'shares its host keys with a replica on the same data directory',
  async () => {
    const replica = await deployment.start();
    expect(await hostKeys(await sshPortOf(replica))).toEqual(keys);
    await expectClone(replica);
  },
  120_000,
);

/** A person with a key, made beside the servers, reads a private repository through `kiln`. */
async function expectClone(kiln: KilnProcess): Promise<void> {
  const { app, make } = await deployment.open();
  const { user: person } = await make.user();
  const pair = makeKeyPair();
  await app.services.sshKeys.addUserKey(person, { title: 'laptop', key: pair.publicKey });
  await app.services.repos.create(person, { name: 'shared', private: true, autoInit: true });
  const port = await sshPortOf(kiln);
  const listed = await git.run(['ls-remote', sshUrl(port, person.handle, 'shared')], {
    env: sshGitEnv(pair, port),
  });
  expect(listed.code, listed.stderr).toBe(0);
  expect(listed.stdout).toContain('refs/heads/main');
}

it('lets a clone in progress finish on SIGTERM, then exits', async () => {
  // SQLite serves one process at a time.
  await running.stop();
  const kiln = await deployment.start();
  const port = await sshPortOf(kiln);
  const { app, make } = await deployment.open();
  const { user: person } = await make.user();
  const pair = makeKeyPair();
  await app.services.sshKeys.addUserKey(person, { title: 'laptop', key: pair.publicKey });
  await app.services.repos.create(person, { name: 'big', private: false });
  // Enough bytes that the clone is still running when the signal comes.
  const work = await git.init();
  await git.commit(work, { 'noise.bin': noise(20 * 1024 * 1024) });
  await git.ok(['push', '-q', sshUrl(port, person.handle, 'big'), 'HEAD:refs/heads/main'], {
    cwd: work,
    env: sshGitEnv(pair, port),
  });
  const target = join(await git.tempDir(), 'clone');
  const clone = git.run(['clone', '-q', sshUrl(port, person.handle, 'big'), target], {
    env: sshGitEnv(pair, port),
  });
  // The pack is arriving: git is writing it into the clone's pack directory.
  const packs = join(target, '.git', 'objects', 'pack');
  await eventually(async () => existsSync(packs) && readdirSync(packs).length > 0, 20_000);
  const exited = new Promise<number | null>((resolve) => kiln.child.once('exit', resolve));
  kiln.child.kill('SIGTERM');
  const cloned = await clone;
  expect(cloned.code, `${cloned.stderr}\n${kiln.stderr()}`).toBe(0);
  expect(await exited).toBe(0);
}, 120_000);
