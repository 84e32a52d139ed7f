/**
 * Git LFS over SSH with `service.lfs.ssh-transfer` off: the SSH server does not serve
 * `git-lfs-transfer`, so Debian's git-lfs falls back to `git-lfs-authenticate` and moves the
 * objects over HTTP with the grant it was given.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lfsWorkTree, oidOf } from '../lfs/lfs-client.ts';
import { useLfsSshWorld } from './lfs-ssh-world.ts';
import { runSsh } from './ssh-support.ts';

const world = useLfsSshWorld({ env: { SERVICE_LFS_SSH_TRANSFER: 'false' } });
const { git, kiln, owner, keys, url, as, sshPort } = world;

/** git's environment for `key`, with git-lfs's trace of what it sends where. */
const traced = (key: (typeof keys)['owner']) => ({
  env: { ...as(key).env, GIT_TRACE: '1', GIT_CURL_VERBOSE: '0' },
});

describe('git lfs over ssh:// with git-lfs-transfer turned off', () => {
  it('does not serve git-lfs-transfer', async () => {
    const repo = `${owner().user.handle}/art.git`;
    const refused = await runSsh(keys.owner, sshPort(), `git-lfs-transfer ${repo} download`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('not served');
  });

  it('pushes and clones through git-lfs-authenticate and HTTP', async () => {
    const content = randomBytes(1024 * 1024 + 7);
    const dir = await lfsWorkTree(git(), url('art'));
    await git().commit(dir, { 'big.bin': content }, 'add a large file');
    const pushed = await git().run(['push', 'origin', 'main'], { cwd: dir, ...traced(keys.owner) });
    expect(pushed.code, pushed.stderr).toBe(0);
    // git-lfs asked for a grant over SSH and sent the batch to the HTTP API.
    expect(pushed.stderr).toContain('git-lfs-authenticate');
    expect(pushed.stderr).toContain(`${kiln().url}/${owner().user.handle}/art.git/info/lfs`);

    const oid = oidOf(content);
    const lfsPath = path.join(kiln().app.dataDir, 'lfs', oid.slice(0, 2), oid.slice(2, 4), oid);
    expect((await readFile(lfsPath)).equals(content)).toBe(true);

    const clone = await git().clone(url('art'), [], as(keys.reader));
    expect((await readFile(path.join(clone, 'big.bin'))).equals(content)).toBe(true);
  });
});
