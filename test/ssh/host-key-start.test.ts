/**
 * `kiln serve` checks its SSH host keys when it starts, although the SSH library loads only with
 * the first connection: a damaged key file stops the start with one line that names the file
 * and what to do, instead of a server that fails every SSH handshake later.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { makeOpensshPrivateKey } from '../../src/ssh/openssh-private-key.ts';
import { runCli, useCliInstance } from '../support/cli.ts';

let env: Record<string, string>;
let sshDir: string;
useCliInstance('kiln-host-key-start-', (instance) => {
  env = { ...instance.env, SERVICE_HTTP_PORT: '0', SERVICE_SSH_PORT: '0' };
  sshDir = join(instance.env.SERVICE_DATA_DIR ?? '', 'ssh');
});

it('refuses to start on a damaged host key, in one line naming the file', async () => {
  mkdirSync(sshDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(sshDir, 'ssh_host_ed25519_key'), await makeOpensshPrivateKey('ed25519'), {
    mode: 0o600,
  });
  const rsa = (await makeOpensshPrivateKey('rsa')).split('\n');
  // A file cut short, as a full disk or an interrupted copy leaves it.
  const cut = [...rsa.slice(0, 10), rsa.at(-2), ''].join('\n');
  writeFileSync(join(sshDir, 'ssh_host_rsa_key'), cut, { mode: 0o600 });

  const started = await runCli(['serve'], env);
  expect(started.code).not.toBe(0);
  // The first start's warnings (a secret key made, a base URL derived) come before it.
  const lines = started.stderr
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('kiln: warning:'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(
    `kiln: the SSH host key ${join(sshDir, 'ssh_host_rsa_key')} cannot be used`,
  );
  expect(lines[0]).toMatch(/delete it to have a new one made/);
  expect(started.stdout).not.toContain('ssh listening');
}, 60_000);
