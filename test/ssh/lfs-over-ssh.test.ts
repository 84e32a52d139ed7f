/**
 * Git LFS over SSH: Debian's git-lfs against a real server, with an `ssh://` remote. It runs
 * `git-lfs-authenticate` over SSH, then talks to the LFS API over HTTP with the grant it was
 * given, with only the access the key's owner (or deploy slot) has.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LFS_SSH_GRANT_SECONDS } from '../../src/domain/lfs/lfs-ssh-grant.ts';
import { lfsWorkTree, oidOf } from '../lfs/lfs-client.ts';
import { useLfsSshWorld } from './lfs-ssh-world.ts';
import { runSsh } from './ssh-support.ts';

const world = useLfsSshWorld();
const { git, kiln, owner, keys, url, as, authenticate } = world;

describe('git lfs over an ssh:// remote', () => {
  it('pushes an object and smudges it back in another key’s clone', async () => {
    const content = randomBytes(256 * 1024 + 3);
    const dir = await lfsWorkTree(git(), url('art'));
    await git().commit(dir, { 'big.bin': content }, 'add a large file');
    await git().ok(['push', '-q', 'origin', 'main'], { cwd: dir, ...as(keys.owner) });

    const oid = oidOf(content);
    const lfsPath = path.join(kiln().app.dataDir, 'lfs', oid.slice(0, 2), oid.slice(2, 4), oid);
    expect((await readFile(lfsPath)).equals(content)).toBe(true);

    const clone = await git().clone(url('art'), [], as(keys.reader));
    expect((await readFile(path.join(clone, 'big.bin'))).equals(content)).toBe(true);

    // The reader may fetch but not push, over SSH as over HTTP.
    await git().commit(clone, { 'mine.bin': randomBytes(1000) });
    const refused = await git().run(['push', 'origin', 'main'], { cwd: clone, ...as(keys.reader) });
    expect(refused.code).not.toBe(0);
  });
  it('locks, lists and unlocks a file', async () => {
    const clone = await git().clone(url('art'), [], as(keys.owner));
    const lfs = (args: string[]) => git().run(['lfs', ...args], { cwd: clone, ...as(keys.owner) });
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
    expect(answer.href).toBe(`${kiln().url}/${owner().user.handle}/art.git/info/lfs`);
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
    const dir = await lfsWorkTree(git(), url('other'));
    await git().commit(dir, { 'firmware.bin': content });
    await git().ok(['push', '-q', 'origin', 'main'], { cwd: dir, ...as(keys.writer) });
    const clone = await git().clone(url('other'), [], as(keys.deploy));
    expect((await readFile(path.join(clone, 'firmware.bin'))).equals(content)).toBe(true);
    expect((await authenticate(keys.writer, 'art', 'upload')).code).toBe(1);
  });

  it('refuses anything but a repository and an operation', async () => {
    for (const args of ['', 'x', `${owner().user.handle}/art.git delete`, 'a/b upload extra']) {
      const refused = await runSsh(keys.owner, world.sshPort(), `git-lfs-authenticate ${args}`);
      expect(refused.code, args).toBe(1);
      expect(refused.stdout, args).toBe('');
    }
  });
});
