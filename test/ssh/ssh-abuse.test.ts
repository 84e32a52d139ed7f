/**
 * What the SSH server does with clients that get nowhere: connections that never authenticate
 * are closed after the login timeout, connections beyond the limit are closed at once, and an
 * address whose connections keep failing is locked out as HTTP sign-in locks it, even with a
 * good key, until the lock ends.
 */
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import type { ServedSsh } from '../../src/ssh/serve-ssh.ts';
import type { GitClient } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import type { Person } from '../support/world.ts';
import { makeKeyPair, sshGitEnv, sshUrl, useSshWorld } from './ssh-support.ts';

let kiln: TestServer;
let git: GitClient;
let owner: Person;
let ssh: ServedSsh;
useSshWorld(
  {
    env: {
      SERVICE_SSH_LOGIN_TIMEOUT: '3s',
      SERVICE_SSH_MAX_SESSIONS: '3',
      SERVICE_AUTH_LOGIN_ADDRESS_LIMIT: '3',
    },
    people: ['owner'],
    repos: [{ owner: 'owner', name: 'r', autoInit: true }],
  },
  async (world, served) => {
    ({ kiln, git } = world);
    owner = world.people.owner;
    ssh = served;
  },
);
/** A bare TCP connection: what it read before the server closed it, and after how long. */
function openConnection() {
  const socket = connect(ssh.port, '127.0.0.1');
  const started = Date.now();
  let read = '';
  socket.on('data', (chunk) => {
    read += chunk;
  });
  socket.on('error', () => {});
  const closed = new Promise<{ read: string; afterMs: number }>((resolve) =>
    socket.on('close', () => resolve({ read, afterMs: Date.now() - started })),
  );
  return { socket, closed };
}

it('closes connections that do not authenticate in time, and those beyond the limit', async () => {
  const held = [openConnection(), openConnection(), openConnection()];
  await new Promise((resolve) => setTimeout(resolve, 200));
  const extra = await openConnection().closed;
  expect(extra.read).toBe('');
  expect(extra.afterMs).toBeLessThan(500);
  for (const { closed } of held) {
    const { read, afterMs } = await closed;
    expect(read).toMatch(/^SSH-2\.0-Kiln_/);
    expect(afterMs).toBeGreaterThanOrEqual(2900);
    expect(afterMs).toBeLessThan(10_000);
  }
});

it('locks out an address whose connections keep failing, good key or not', async () => {
  const good = makeKeyPair();
  await kiln.app.services.sshKeys.addUserKey(owner.user, { title: 'good', key: good.publicKey });
  const url = sshUrl(ssh.port, owner.user.handle, 'r');
  const listWith = (key = good) => git.run(['ls-remote', url], { env: sshGitEnv(key, ssh.port) });
  // Authenticating gives the connection's count back: any number of them is fine.
  for (let i = 0; i < 4; i++) expect((await listWith()).code).toBe(0);
  for (let i = 0; i < 3; i++) {
    expect((await listWith(makeKeyPair())).stderr).toContain('Permission denied');
  }
  const locked = await listWith();
  expect(locked.code).not.toBe(0);
});
