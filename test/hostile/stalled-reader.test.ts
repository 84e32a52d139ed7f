/**
 * A client that stops reading an answer moves no byte either way, so no request or headers
 * timeout ever fires for it: without `service.http.idle-timeout` it would hold its connection,
 * the answer's buffers and a drain on SIGTERM for as long as it liked. With a 2 s idle timeout
 * here, such a client is cut off, while a clone whose pack git writes straight into the socket
 * (silent to Node however long it takes) is not, even when its client pauses mid-pack, and
 * neither is the 24 MB push that sets the repository up, whose checks on a busy machine keep the
 * connection silent on the server's account (src/http/silent-clients.ts).
 */
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';

let kiln: TestServer;
let git: GitClient;
let owner: Person;
const BIG = 24 * 1024 * 1024;

useWorld(
  {
    people: ['owner'],
    repos: [{ name: 'heavy', owner: 'owner' }],
    env: { SERVICE_HTTP_IDLE_TIMEOUT: '2s' },
    timeoutMs: 60_000,
  },
  async (world) => {
    ({ kiln, git } = world);
    owner = world.people.owner;
    const work = await git.init();
    await git.commit(work, { 'big.bin': randomBytes(BIG) }, 'big');
    const url = repoUrl(kiln.url, owner.user.handle, 'heavy', {
      token: owner.token,
      as: 'password',
    });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: work, timeoutMs: 60_000 });
  },
);

describe('a client that stops reading', () => {
  it('is cut off once the connection has been silent for the idle timeout', async () => {
    const { port } = new URL(kiln.url);
    const socket = connect(Number(port), '127.0.0.1');
    let read = 0;
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length;
    });
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.once('data', () => {
      // One look at the head, then no byte read for over twice the idle timeout: the server's
      // writes fill the buffers between us. Reading again shows what it did meanwhile.
      socket.pause();
      setTimeout(() => socket.resume(), 5000);
    });
    socket.write(
      `GET /repos/${owner.user.handle}/heavy/raw/main/big.bin HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    await ended;
    expect(read).toBeGreaterThan(0);
    // Cut off: the connection ended before the whole answer came.
    expect(read).toBeLessThan(BIG);
    // The server answers everybody else all along, and afterwards.
    expect((await fetch(`${kiln.url}/healthz`)).status).toBe(200);
  });
});

/**
 * A TCP relay in front of the server that, once it has passed `after` bytes of an answer to the
 * client, stops reading the server for `pauseMs`: to the server the client has stopped reading.
 */
async function pausingRelay(target: URL, after: number, pauseMs: number) {
  let paused = 0;
  const relay: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    let passed = 0;
    let done = false;
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      passed += chunk.length;
      if (!done && passed > after) {
        done = true;
        paused += 1;
        upstream.pause();
        setTimeout(() => upstream.resume(), pauseMs);
      }
    });
    upstream.on('end', () => client.end());
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const address = relay.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    paused: () => paused,
    close: () => new Promise((resolve) => relay.close(resolve)),
  };
}

describe('a clone that git writes straight into the socket', () => {
  it('is not cut off when its client pauses for longer than the idle timeout', async () => {
    const relay = await pausingRelay(new URL(kiln.url), 4 * 1024 * 1024, 4000);
    try {
      const url = repoUrl(relay.url, owner.user.handle, 'heavy', {
        token: owner.token,
        as: 'password',
      });
      const target = await git.tempDir('clone-');
      const clone = await git.run(['clone', '-q', '--bare', url, target], { timeoutMs: 60_000 });
      expect(clone.stderr).toBe('');
      expect(clone.code).toBe(0);
      expect(relay.paused()).toBe(1);
    } finally {
      await relay.close();
    }
  });
});
