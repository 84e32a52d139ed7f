/**
 * Git LFS over SSH: Debian's git-lfs against a real server, with an `ssh://` remote. It runs
 * `git-lfs-authenticate` over SSH, then talks to the LFS API over HTTP with the short-lived
 * grant it was given — which opens one repository, for one operation, until it expires, and only
 * with the access the key's owner has.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { LFS_SSH_GRANT_SECONDS } from '../../src/domain/lfs/lfs-ssh-grant.ts';
import { lfsSshCommands } from '../../src/ssh/lfs-authenticate.ts';
import { type ServedSsh, serveSsh } from '../../src/ssh/serve-ssh.ts';
import { batchBody, installLfs, LFS_HEADERS, lfsWorkTree, oidOf } from '../lfs/lfs-client.ts';
import type { GitClient } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import {
  type KeyPair,
  makeKeyPair,
  removeKeyPairs,
  runSsh,
  sshGitEnv,
  sshUrl,
} from './ssh-support.ts';

let kiln: TestServer;
let git: GitClient;
let ssh: ServedSsh;
let owner: Person;
let reader: Person;
const keys: Record<'owner' | 'reader' | 'stranger' | 'deploy', KeyPair> = {
  owner: makeKeyPair(),
  reader: makeKeyPair(),
  stranger: makeKeyPair(),
  deploy: makeKeyPair(),
  writer: makeKeyPair(),
};

useWorld(
  {
    people: ['owner', 'reader', 'stranger'],
    repos: [
      { owner: 'owner', name: 'art', private: true },
      { owner: 'owner', name: 'other', private: true },
    ],
    timeoutMs: 90_000,
  },
  async (world) => {
    ({ kiln, git } = world);
    ({ owner, reader } = world.people);
    await installLfs(git);
    const { app } = kiln;
    ssh = await serveSsh({
      services: app.services,
      config: { ...app.config, ssh: { ...app.config.ssh, port: 0, host: '127.0.0.1' } },
      dataDir: app.dataDir,
      log: kiln.server.log,
      extraCommands: lfsSshCommands(app.services, kiln.url),
    });
    for (const who of ['owner', 'reader', 'stranger'] as const) {
      const added = await apiCall(kiln.url, '/user/keys', {
        method: 'POST',
        token: world.people[who].token,
        body: { title: who, key: keys[who].publicKey },
      });
      expect(added.status).toBe(201);
    }
    const deploy = await apiCall(kiln.url, `/repos/${owner.user.handle}/other/keys`, {
      method: 'POST',
      token: owner.token,
      body: { title: 'deploy', key: keys.deploy.publicKey, read_only: true },
    });
    expect(deploy.status).toBe(201);
    const writer = await apiCall(kiln.url, `/repos/${owner.user.handle}/other/keys`, {
      method: 'POST',
      token: owner.token,
      body: { title: 'writer', key: keys.writer.publicKey, read_only: false },
    });
    expect(writer.status).toBe(201);
    for (const name of ['art', 'other']) {
      await app.services.collaborators.put(
        owner.user,
        owner.user.handle,
        name,
        reader.user.handle,
        'read',
      );
    }
  },
);
afterAll(async () => {
  await ssh?.server.close();
  removeKeyPairs();
});

const url = (name: string) => sshUrl(ssh.port, owner.user.handle, name);
const as = (key: KeyPair) => ({ env: sshGitEnv(key, ssh.port) });
const authenticate = (key: KeyPair, repo: string, operation: string) =>
  runSsh(key, ssh.port, `git-lfs-authenticate ${owner.user.handle}/${repo}.git ${operation}`);

describe('git lfs over an ssh:// remote', () => {
  it('pushes an object and smudges it back in another key’s clone', async () => {
    const content = randomBytes(256 * 1024 + 3);
    const dir = await lfsWorkTree(git, url('art'));
    await git.commit(dir, { 'big.bin': content }, 'add a large file');
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: dir, ...as(keys.owner) });

    const oid = oidOf(content);
    const lfsPath = path.join(kiln.app.dataDir, 'lfs', oid.slice(0, 2), oid.slice(2, 4), oid);
    expect((await readFile(lfsPath)).equals(content)).toBe(true);

    const clone = await git.clone(url('art'), [], as(keys.reader));
    expect((await readFile(path.join(clone, 'big.bin'))).equals(content)).toBe(true);

    // The reader may fetch but not push, over SSH as over HTTP.
    await git.commit(clone, { 'mine.bin': randomBytes(1000) });
    const refused = await git.run(['push', 'origin', 'main'], { cwd: clone, ...as(keys.reader) });
    expect(refused.code).not.toBe(0);
  });
  it('locks, lists and unlocks a file', async () => {
    const clone = await git.clone(url('art'), [], as(keys.owner));
    const lfs = (args: string[]) => git.run(['lfs', ...args], { cwd: clone, ...as(keys.owner) });
    const locked = await lfs(['lock', 'big.bin']);
    expect(locked.code, locked.stderr).toBe(0);
    const listed = await lfs(['locks']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('big.bin');
    const unlocked = await lfs(['unlock', 'big.bin']);
    expect(unlocked.code, unlocked.stderr).toBe(0);
    expect((await lfs(['locks'])).stdout).not.toContain('big.bin');
  });
});

describe('git-lfs-authenticate', () => {
  it('answers the API’s address, a bearer grant and its lifetime', async () => {
    const answered = await authenticate(keys.owner, 'art', 'upload');
    expect(answered.code, answered.stderr).toBe(0);
    const answer = JSON.parse(answered.stdout);
    expect(answer.href).toBe(`${kiln.url}/${owner.user.handle}/art.git/info/lfs`);
    expect(answer.header.Authorization).toMatch(/^Bearer kiln-lfs-ssh:/);
    expect(answer.expires_in).toBe(LFS_SSH_GRANT_SECONDS);
  });

  it('gives each key its owner’s access; private reads as missing', async () => {
    const missing = await authenticate(keys.stranger, 'nothing-here', 'download');
    const hidden = await authenticate(keys.stranger, 'art', 'download');
    expect(hidden.code).toBe(1);
    expect(hidden.stdout).toBe('');
    expect(hidden.stderr.replace('art', 'X')).toBe(missing.stderr.replace('nothing-here', 'X'));
    expect((await authenticate(keys.reader, 'art', 'download')).code).toBe(0);
    const upload = await authenticate(keys.reader, 'art', 'upload');
    expect(upload.code).toBe(1);
    expect(upload.stdout).toBe('');
  });

  it('gives a read-only deploy key downloads of its repository and nothing else', async () => {
    expect((await authenticate(keys.deploy, 'other', 'download')).code).toBe(0);
    expect((await authenticate(keys.deploy, 'other', 'upload')).code).toBe(1);
    const elsewhere = await authenticate(keys.deploy, 'art', 'download');
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(/^Kiln: repository does not exist/);
  });

  it('lets a writable deploy key push objects to its repository only', async () => {
    const content = randomBytes(2048);
    const dir = await lfsWorkTree(git, url('other'));
    await git.commit(dir, { 'firmware.bin': content });
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: dir, ...as(keys.writer) });
    const clone = await git.clone(url('other'), [], as(keys.deploy));
    expect((await readFile(path.join(clone, 'firmware.bin'))).equals(content)).toBe(true);
    expect((await authenticate(keys.writer, 'art', 'upload')).code).toBe(1);
  });

  it('refuses anything but a repository and an operation', async () => {
    for (const args of ['', 'x', `${owner.user.handle}/art.git delete`, 'a/b upload extra']) {
      const refused = await runSsh(keys.owner, ssh.port, `git-lfs-authenticate ${args}`);
      expect(refused.code, args).toBe(1);
      expect(refused.stdout, args).toBe('');
    }
  });
});

describe('a grant', () => {
  const repos = ['art', 'other'] as const;
  const operations = ['upload', 'download'] as const;
  type Grant = { repo: string; operation: string; authorization: string };
  const grants: Grant[] = [];

  /** The status of a batch request for `operation` on `repo` with `authorization`. */
  const batch = async (repo: string, operation: string, authorization: string) => {
    const response = await fetch(
      `${kiln.url}/${owner.user.handle}/${repo}.git/info/lfs/objects/batch`,
      {
        method: 'POST',
        headers: { ...LFS_HEADERS, authorization },
        body: batchBody(operation as 'upload', [{ oid: 'b'.repeat(64), size: 5 }]),
      },
    );
    await response.arrayBuffer();
    return response.status;
  };

  it('opens its one repository for its one operation, and no other', async () => {
    for (const repo of repos) {
      for (const operation of operations) {
        const answered = await authenticate(keys.owner, repo, operation);
        expect(answered.code, answered.stderr).toBe(0);
        const { header } = JSON.parse(answered.stdout);
        grants.push({ repo, operation, authorization: header.Authorization });
      }
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...grants),
        fc.constantFrom(...repos),
        fc.constantFrom(...operations),
        async (grant, repo, operation) => {
          const status = await batch(repo, operation, grant.authorization);
          const mine = grant.repo === repo && grant.operation === operation;
          expect(status === 200, `${grant.repo}/${grant.operation} on ${repo}/${operation}`).toBe(
            mine,
          );
        },
      ),
      { numRuns: 24 },
    );
  });

  it('is refused once expired, or changed in any character', async () => {
    const services = kiln.app.services;
    const [grant] = grants;
    if (!grant) throw new Error('no grant');
    const token = grant.authorization.slice('Bearer '.length);
    const claims = services.lfsSshGrants.verify(token);
    if (!claims) throw new Error('the grant does not verify');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 3 * LFS_SSH_GRANT_SECONDS }), async (age) => {
        const minted = services.lfsSshGrants.mint(claims, Date.now() - age * 1000);
        const status = await batch(grant.repo, grant.operation, `Bearer ${minted}`);
        if (age < LFS_SSH_GRANT_SECONDS - 5) expect(status, `age ${age}`).toBe(200);
        if (age >= LFS_SSH_GRANT_SECONDS) expect(status, `age ${age}`).toBe(401);
      }),
      { numRuns: 20 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 'kiln-lfs-ssh:'.length, max: token.length - 1 }),
        fc.constantFrom(...'AQgw_-xyz0'),
        async (at, character) => {
          fc.pre(token[at] !== character);
          const changed = `${token.slice(0, at)}${character}${token.slice(at + 1)}`;
          const status = await batch(grant.repo, grant.operation, `Bearer ${changed}`);
          expect(status, changed).toBe(401);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('dies with its key', async () => {
    const answered = await authenticate(keys.reader, 'art', 'download');
    const { header } = JSON.parse(answered.stdout);
    expect(await batch('art', 'download', header.Authorization)).toBe(200);
    const listed = await apiCall(kiln.url, '/user/keys', { token: reader.token });
    for (const key of listed.body) {
      await apiCall(kiln.url, `/user/keys/${key.id}`, { method: 'DELETE', token: reader.token });
    }
    expect(await batch('art', 'download', header.Authorization)).toBe(401);
  });
});
