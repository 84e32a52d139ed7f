/**
 * Protocol features over smart HTTP: protocol v2 chosen through the allow-listed `Git-Protocol`
 * header, partial clones (`--filter=blob:none`) that fetch blobs lazily at checkout, shallow
 * clones and deepening, and gzip-compressed request bodies, both as git sends them during a
 * long negotiation and as hand-made requests (a fetch, and a push, which git itself never
 * compresses).
 */

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { auth } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { makeRepo } from './fixtures.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;
/** A public repository with ten commits on main, each rewriting `file.txt` and adding a file. */
let repo: { owner: string; name: string };
let shas: string[];

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  ({ user: owner, token } = await kiln.make.userWithToken());
  repo = await makeRepo(kiln, owner);
  const work = await git.init();
  shas = [];
  for (let i = 0; i < 10; i++) {
    shas.push(
      await git.commit(work, { 'file.txt': `version ${i}\n`, [`f${i}.txt`]: `${i}\n` }, `c${i}`),
    );
  }
  await git.ok(
    ['push', '-q', repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'password' }), 'main'],
    {
      cwd: work,
    },
  );
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

const url = () => repoUrl(kiln.url, repo.owner, repo.name);
const infoRefs = (headers: Record<string, string> = {}) =>
  fetch(`${url()}/info/refs?service=git-upload-pack`, { headers });

describe('protocol v2', () => {
  it('answers a version=2 Git-Protocol header with the v2 capability advertisement', async () => {
    const response = await infoRefs({ 'git-protocol': 'version=2' });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body.startsWith('000eversion 2\n')).toBe(true);
    expect(body).toContain('fetch=');
  });

  it('keeps only allow-listed Git-Protocol items', async () => {
    const mixed = await (await infoRefs({ 'git-protocol': 'evil=1:version=2:x' })).text();
    expect(mixed.startsWith('000eversion 2\n')).toBe(true);
    const junk = await (await infoRefs({ 'git-protocol': 'object-format=sha256' })).text();
    expect(junk.startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
  });

  it('serves a blob-less partial clone and fetches blobs lazily on checkout', async () => {
    const parent = await git.tempDir();
    const clone = await git.run(
      ['-c', 'protocol.version=2', 'clone', '--filter=blob:none', '--no-checkout', url(), 'p'],
      { cwd: parent, env: { GIT_TRACE_PACKET: '1' } },
    );
    expect(clone.code).toBe(0);
    expect(clone.stderr).toContain('< version 2');
    expect(clone.stderr).toContain('filter blob:none');
    const dir = path.join(parent, 'p');
    const missing = async () =>
      (await git.ok(['rev-list', '--objects', '--all', '--missing=print'], { cwd: dir }))
        .split('\n')
        .filter((line) => line.startsWith('?')).length;
    // Every version of file.txt and every f*.txt is still on the server.
    expect(await missing()).toBe(20);
    await git.ok(['-c', 'protocol.version=2', 'checkout', '-q', 'main'], { cwd: dir });
    expect(await readFile(path.join(dir, 'file.txt'), 'utf8')).toBe('version 9\n');
    await git.ok(['-c', 'protocol.version=2', 'checkout', '-q', shas[3]!], { cwd: dir });
    expect(await readFile(path.join(dir, 'file.txt'), 'utf8')).toBe('version 3\n');
    expect(await missing()).toBe(20 - 11 - 1);
    expect(
      await git.ok(['fsck', '--no-progress', '--no-dangling', '--connectivity-only'], { cwd: dir }),
    ).toBe('');
  });

  it('serves a blob-less partial clone over protocol v0 too', async () => {
    const dir = await git.clone(url(), ['-c', 'protocol.version=0', '--filter=blob:none']);
    expect(await readFile(path.join(dir, 'file.txt'), 'utf8')).toBe('version 9\n');
  });
});

describe('shallow clones', () => {
  for (const version of ['0', '2']) {
    it(`clones at depth 1 and deepens later (protocol v${version})`, async () => {
      const dir = await git.clone(url(), ['-c', `protocol.version=${version}`, '--depth', '1']);
      const count = () => git.ok(['rev-list', '--count', 'HEAD'], { cwd: dir });
      expect(await count()).toBe('1');
      expect(await git.ok(['rev-parse', '--is-shallow-repository'], { cwd: dir })).toBe('true');
      await git.ok(['-c', `protocol.version=${version}`, 'fetch', '-q', '--deepen', '3'], {
        cwd: dir,
      });
      expect(await count()).toBe('4');
      await git.ok(['-c', `protocol.version=${version}`, 'fetch', '-q', '--unshallow'], {
        cwd: dir,
      });
      expect(await count()).toBe('10');
    });
  }
});

describe('gzip request bodies', () => {
  for (const version of ['0', '2']) {
    it(`accepts the gzip bodies git sends during a long negotiation (protocol v${version})`, async () => {
      const dir = await git.clone(url());
      // Many local commits the server lacks: git lists them as "have" lines, which makes the
      // request large enough for git to gzip it.
      await git.ok(['checkout', '-q', '-b', 'local'], { cwd: dir });
      await git.commitMany(dir, 60, `local-v${version}`);
      const pusher = await git.clone(url());
      const tip = await git.commit(pusher, { [`new-v${version}.txt`]: 'new\n' });
      await git.ok(
        ['push', '-q', repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'username' }), 'main'],
        { cwd: pusher },
      );
      const fetched = await git.run(['-c', `protocol.version=${version}`, 'fetch', 'origin'], {
        cwd: dir,
        env: { GIT_TRACE_CURL: '1', GIT_TRACE_CURL_NO_DATA: '1' },
      });
      expect(fetched.code).toBe(0);
      expect(fetched.stderr).toMatch(/=> Send header: Content-Encoding: gzip/);
      expect(await git.ok(['rev-parse', 'origin/main'], { cwd: dir })).toBe(tip);
      shas.push(tip);
    });
  }

  const packets = (...lines: string[]) =>
    lines
      .map((line) =>
        line === '0000' ? line : (line.length + 4).toString(16).padStart(4, '0') + line,
      )
      .join('');

  it('accepts a hand-made gzip upload-pack request', async () => {
    const head = shas[9]!;
    const body = gzipSync(packets(`want ${head} ofs-delta\n`, '0000', 'done\n'));
    const response = await fetch(`${url()}/git-upload-pack`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-git-upload-pack-request',
        'content-encoding': 'gzip',
      },
      body,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    expect(response.headers.get('cache-control')).toContain('no-cache');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 8).toString()).toBe('0008NAK\n');
    expect(bytes.subarray(8, 12).toString()).toBe('PACK');
  });

  it('accepts a hand-made gzip receive-pack request: the ref moves and the pack is whole', async () => {
    const work = await git.clone(url());
    const base = await git.ok(['rev-parse', 'HEAD'], { cwd: work });
    const tip = await git.commit(work, { 'gzipped.txt': 'came compressed\n' });
    const pack = spawnSync('git', ['pack-objects', '--stdout', '--revs', '-q'], {
      cwd: work,
      env: git.env,
      input: `${tip}\n^${base}\n`,
    });
    expect(pack.status, String(pack.stderr)).toBe(0);
    const commands = packets(
      `${'0'.repeat(40)} ${tip} refs/heads/gzipped\0report-status\n`,
      '0000',
    );
    const response = await fetch(`${url()}/git-receive-pack`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-git-receive-pack-request',
        'content-encoding': 'gzip',
        ...auth.basicPassword(token, owner.handle),
      },
      body: gzipSync(Buffer.concat([Buffer.from(commands), pack.stdout])),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-git-receive-pack-result');
    const report = await response.text();
    expect(report).toContain('unpack ok');
    expect(report).toContain('ok refs/heads/gzipped');
    const remote = await git.ok(['ls-remote', url(), 'refs/heads/gzipped']);
    expect(remote).toBe(`${tip}\trefs/heads/gzipped`);
    const dir = kiln.app.git.paths.resolve(repo).path;
    await git.ok(['--git-dir', dir, 'fsck', '--strict', '--no-dangling']);
  });

  const uploadPackRequest = (body: string) =>
    fetch(`${url()}/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request' },
      body,
    });

  it('has git write the pack into the connection, which then closes', async () => {
    const response = await uploadPackRequest(
      packets(`want ${shas[9]} ofs-delta\n`, '0000', 'done\n'),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('close');
    expect(response.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    expect(response.headers.get('cache-control')).toContain('no-cache');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 12).toString()).toBe('0008NAK\nPACK');
    // A whole pack: the header's object count is followed by objects and a 20-byte trailer.
    expect(bytes.length).toBeGreaterThan(12 + 12 + 20);
    expect((await infoRefs()).status).toBe(200);
  });

  it('sends the whole answer even when the client sends a stray line break and reads slowly', async () => {
    // An answer of several megabytes that a paused client leaves in the socket buffers while
    // git exits: closing with the line break unread would reset the connection and lose them.
    const big = await makeRepo(kiln, owner);
    const work = await git.init();
    const tip = await git.commit(work, { 'noise.bin': randomBytes(12 * 1024 * 1024) });
    await git.ok(
      ['push', '-q', repoUrl(kiln.url, big.owner, big.name, { token, as: 'password' }), 'main'],
      { cwd: work },
    );
    const body = packets(`want ${tip} ofs-delta\n`, '0000', 'done\n');
    const endpoint = new URL(`${repoUrl(kiln.url, big.owner, big.name)}/git-upload-pack`);
    const clean = Buffer.from(
      await (
        await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/x-git-upload-pack-request' },
          body,
        })
      ).arrayBuffer(),
    );
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(Number(endpoint.port), '127.0.0.1', () => {
        socket.write(
          `POST ${endpoint.pathname} HTTP/1.1\r\nHost: ${endpoint.host}\r\n` +
            'Content-Type: application/x-git-upload-pack-request\r\n' +
            `Content-Length: ${body.length}\r\n\r\n${body}`,
        );
        socket.pause();
        setTimeout(() => socket.write('\r\n'), 200);
        setTimeout(() => socket.resume(), 1500);
      });
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks)));
      socket.on('error', reject);
    });
    const answer = raw.subarray(raw.indexOf('\r\n\r\n') + 4);
    expect(answer.length).toBe(clean.length);
    expect(answer.equals(clean)).toBe(true);
  });

  it('relays the answer to a request body too large to read first', async () => {
    const haves = Array.from(
      { length: 25_000 },
      (_, i) => `have ${i.toString(16).padStart(40, '0')}\n`,
    );
    const response = await uploadPackRequest(
      packets(`want ${shas[9]} ofs-delta\n`, '0000', ...haves, 'done\n'),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).not.toBe('close');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 12).toString()).toBe('0008NAK\nPACK');
  });

  it('survives a corrupt gzip body and keeps answering', async () => {
    const response = await fetch(`${url()}/git-upload-pack`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-git-upload-pack-request',
        'content-encoding': 'gzip',
      },
      body: Buffer.concat([gzipSync('0000').subarray(0, 6), Buffer.from('not gzip at all')]),
    }).then(
      async (r) => ({ status: r.status, text: await r.text().catch(() => '') }),
      () => ({ status: 0, text: '' }),
    );
    expect(response.status === 0 || response.status >= 400 || response.text === '').toBe(true);
    expect((await infoRefs()).status).toBe(200);
  });

  it('refuses a gzip body that inflates beyond reason, before git starts, and keeps answering', async () => {
    // 48 MiB of the same `have` line, deflated to a few hundred kilobytes.
    const have = packets(`have ${'1'.repeat(40)}\n`);
    const lines = Buffer.from(have.repeat((48 * 1024 * 1024) / have.length));
    const bomb = gzipSync(
      Buffer.concat([Buffer.from(packets(`want ${shas[9]} ofs-delta\n`, '0000')), lines]),
      { level: 9 },
    );
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const response = await fetch(`${url()}/git-upload-pack`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-git-upload-pack-request',
        'content-encoding': 'gzip',
      },
      body: bomb,
    });
    expect(response.status).toBe(413);
    expect(await response.text()).toMatch(/too large once inflated/);
    expect((await infoRefs()).status).toBe(200);
  });

  it('cuts off a gzip body too large to read first once it inflates beyond reason', async () => {
    // Random `have` lines that do not compress (over a mebibyte deflated, so the body is relayed
    // as it arrives), then 40 MiB that do.
    const random = Array.from({ length: 50_000 }, () =>
      packets(`have ${randomBytes(20).toString('hex')}\n`),
    ).join('');
    const have = packets(`have ${'1'.repeat(40)}\n`);
    const body = gzipSync(
      Buffer.concat([
        Buffer.from(packets(`want ${shas[9]} ofs-delta\n`, '0000') + random),
        Buffer.from(have.repeat((40 * 1024 * 1024) / have.length)),
        Buffer.from(packets('done\n')),
      ]),
    );
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const response = await fetch(`${url()}/git-upload-pack`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-git-upload-pack-request',
        'content-encoding': 'gzip',
      },
      body,
    }).then(
      async (r) => ({ status: r.status, bytes: await r.arrayBuffer().catch(() => undefined) }),
      () => ({ status: 0, bytes: undefined }),
    );
    expect(response.status === 0 || response.status >= 400).toBe(true);
    expect((await infoRefs()).status).toBe(200);
  });

  it('refuses a body in an encoding it cannot undo', async () => {
    for (const service of ['git-upload-pack', 'git-receive-pack']) {
      const response = await fetch(`${url()}/${service}`, {
        method: 'POST',
        headers: {
          'content-type': `application/x-git-${service.slice(4)}-request`,
          'content-encoding': 'br',
        },
        body: '0000',
      });
      expect(response.status).toBe(415);
      expect(await response.text()).toMatch(/gzip or none/);
    }
  });

  it('answers the probe git sends first (a flush packet alone) with nothing, after a challenge', async () => {
    const probe = (service: string, headers: Record<string, string> = {}) =>
      fetch(`${url()}/${service}`, {
        method: 'POST',
        headers: { 'content-type': `application/x-git-${service.slice(4)}-request`, ...headers },
        body: '0000',
      });
    const credentials = auth.basicPassword(token, owner.handle);
    const anonymous = await probe('git-receive-pack');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="Kiln"');
    for (const service of ['git-receive-pack', 'git-upload-pack']) {
      const response = await probe(service, credentials);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(
        `application/x-git-${service.slice(4)}-result`,
      );
      expect(response.headers.get('cache-control')).toContain('no-cache');
      expect(await response.arrayBuffer()).toHaveProperty('byteLength', 0);
    }
  });

  it('refuses a request with the wrong content type', async () => {
    const response = await fetch(`${url()}/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(415);
  });
});
