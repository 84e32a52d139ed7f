import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { pushHintLines } from '../../src/domain/pulls/push-hints.ts';
import { type ServedSsh, serveSsh } from '../../src/ssh/serve-ssh.ts';
import { runScript, type ScriptResult } from '../support/doc-blocks.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld, type World, type WorldOptions } from '../support/world.ts';

/** A key pair made by OpenSSH's own `ssh-keygen`, as a user makes one. */
export type KeyPair = { readonly privatePath: string; readonly publicKey: string };

const keyDirs: string[] = [];

/** Makes a key pair of `type` (`ed25519`, `ecdsa`, `rsa`, `dsa`) with no passphrase. */
export function makeKeyPair(type = 'ed25519', bits?: number): KeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-ssh-key-'));
  keyDirs.push(dir);
  const privatePath = join(dir, 'id');
  const args = ['-q', '-t', type, '-N', '', '-C', 'tester@example.test', '-f', privatePath];
  const made = spawnSync('ssh-keygen', bits ? [...args, '-b', String(bits)] : args, {
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr}`);
  return { privatePath, publicKey: readFileSync(`${privatePath}.pub`, 'utf8').trim() };
}

/** Removes the key pairs made so far. */
export function removeKeyPairs(): void {
  for (const dir of keyDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** OpenSSH's client with one key and nothing of the machine's own configuration or agent. */
export function sshCommand(key: KeyPair, port: number): string {
  return [
    'ssh -F /dev/null -o BatchMode=yes -o IdentitiesOnly=yes -o IdentityAgent=none',
    '-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR',
    `-i ${key.privatePath} -p ${port}`,
  ].join(' ');
}

/** The environment that makes `git` go over SSH with `key`. */
export function sshGitEnv(key: KeyPair, port: number): Record<string, string> {
  return { GIT_SSH_COMMAND: sshCommand(key, port), GIT_SSH_VARIANT: 'ssh' };
}

/** `ssh://git@127.0.0.1:PORT/owner/name.git`. */
export function sshUrl(port: number, owner: string, name: string): string {
  return `ssh://git@127.0.0.1:${port}/${owner}/${name}.git`;
}

/**
 * Starts the SSH edge beside a test server, as `kiln serve` does (its settings, port 0, the
 * hints after a push pointing at the test server's pages).
 */
export async function startSsh(kiln: TestServer): Promise<ServedSsh> {
  const { app } = kiln;
  return serveSsh({
    services: app.services,
    config: { ...app.config, ssh: { ...app.config.ssh, port: 0, host: '127.0.0.1' } },
    dataDir: app.dataDir,
    log: kiln.server.log,
    pushHints: (suggestions) => pushHintLines(suggestions, kiln.url),
  });
}

/** Runs `ssh … git@127.0.0.1 COMMAND` (the line as ssh sends it) with OpenSSH's client. */
export async function runSsh(key: KeyPair, port: number, command = ''): Promise<ScriptResult> {
  const quoted = command === '' ? '' : ` '${command.replaceAll("'", "'\\''")}'`;
  return runScript(`${sshCommand(key, port)} -T git@127.0.0.1${quoted}`, {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
  }).catch((error: unknown) => ({ code: null, stdout: '', stderr: String(error) }));
}

/** What a command run over SSH gave: its exit status and its two streams. */
export type ExecResult = { code: number | null; stdout: Buffer; stderr: string };

/**
 * Runs `ssh … git@127.0.0.1 COMMAND` with `input` on its standard input, and collects the
 * command's bytes as they are (a binary protocol's answers).
 */
export function execSsh(
  key: KeyPair,
  port: number,
  command: string,
  input: Buffer,
): Promise<ExecResult> {
  const quoted = `'${command.replaceAll("'", "'\\''")}'`;
  const child = spawn('sh', ['-c', `${sshCommand(key, port)} -T git@127.0.0.1 ${quoted}`], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  // The server may stop reading before all of the input went (a refused session).
  child.stdin.on('error', () => {});
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(stdout),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
  });
}

/**
 * One world for the suite with the SSH edge started beside its server (`startSsh`); the edge is
 * closed and the key pairs made are removed once the suite is done.
 */
export function useSshWorld<P extends string = never, R extends string = never>(
  options: WorldOptions<P, R>,
  ready: (world: World<P, R>, ssh: ServedSsh) => void | Promise<void>,
): void {
  let served: ServedSsh | undefined;
  useWorld(options, async (world) => {
    served = await startSsh(world.kiln);
    await ready(world, served);
  });
  afterAll(async () => {
    await served?.server.close();
    removeKeyPairs();
  });
}
