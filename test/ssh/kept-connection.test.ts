/**
 * A connection kept open is no way around losing access: with OpenSSH multiplexing every git
 * command over one authenticated connection, a command after the account is disabled, or after
 * the key is removed, is refused as a new connection would be.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { ServedSsh } from '../../src/ssh/serve-ssh.ts';
import type { GitClient } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import type { Person } from '../support/world.ts';
import { type KeyPair, makeKeyPair, sshCommand, sshUrl, useSshWorld } from './ssh-support.ts';

let kiln: TestServer;
let git: GitClient;
let ssh: ServedSsh;
let owner: Person;
const controlDir = mkdtempSync(join(tmpdir(), 'kiln-ssh-mux-'));

useSshWorld(
  {
    people: ['owner'],
    repos: [{ owner: 'owner', name: 'open', autoInit: true }],
    timeoutMs: 60_000,
  },
  (world, served) => {
    ({ kiln, git } = world);
    owner = world.people.owner;
    ssh = served;
  },
);
afterAll(() => {
  rmSync(controlDir, { recursive: true, force: true });
});

/** Git over one shared connection: the first command opens it, the others reuse it. */
function shared(key: KeyPair, name: string) {
  const mux = `-o ControlMaster=auto -o ControlPath=${join(controlDir, name)} -o ControlPersist=20`;
  return {
    env: { GIT_SSH_COMMAND: `${sshCommand(key, ssh.port)} ${mux}`, GIT_SSH_VARIANT: 'ssh' },
  };
}

it('refuses commands once the account is disabled or the key removed', async () => {
  const person = await kiln.make.userWithToken();
  const pair = makeKeyPair();
  const added = await apiCall(kiln.url, '/user/keys', {
    method: 'POST',
    token: person.token,
    body: { title: 'kept', key: pair.publicKey },
  });
  expect(added.status).toBe(201);
  const url = sshUrl(ssh.port, owner.user.handle, 'open');
  expect((await git.run(['ls-remote', url], shared(pair, 'a'))).code).toBe(0);

  await kiln.app.services.users.setDisabled(person.user, true);
  const disabled = await git.run(['ls-remote', url], shared(pair, 'a'));
  expect(disabled.code).not.toBe(0);
  expect(disabled.stderr).toContain('this key no longer gives access');
  await kiln.app.services.users.setDisabled(person.user, false);

  expect((await git.run(['ls-remote', url], shared(pair, 'b'))).code).toBe(0);
  await apiCall(kiln.url, `/user/keys/${added.body.id}`, { method: 'DELETE', token: person.token });
  const removed = await git.run(['ls-remote', url], shared(pair, 'b'));
  expect(removed.code).not.toBe(0);
  expect(removed.stderr).toContain('this key no longer gives access');
});
