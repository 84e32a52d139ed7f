/**
 * The operator's two settings: SERVICE_LFS_MAX_FILE_SIZE refuses larger objects before a byte
 * is sent (and refuses a body that grows past it all the same), SERVICE_LFS_ENABLED=false turns
 * the API off.
 */
import { describe, expect, it } from 'vitest';
import { basic } from '../git/fixtures.ts';
import { type GitClient, noise, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { batchBody, installLfs, LFS_HEADERS, lfsWorkTree, oidOf } from './lfs-client.ts';

describe('SERVICE_LFS_MAX_FILE_SIZE', () => {
  let kiln: TestServer;
  let git: GitClient;
  let owner: Person;
  useWorld(
    {
      env: { SERVICE_LFS_MAX_FILE_SIZE: '10000' },
      people: ['owner'],
      repos: [{ owner: 'owner', name: 'capped' }],
    },
    async (world) => {
      ({ kiln, git } = world);
      owner = world.people.owner;
      await installLfs(git);
    },
  );
  const api = (rest: string) => `${kiln.url}/${owner.user.handle}/capped.git/info/lfs/${rest}`;

  it('answers a larger object with a 422 naming the limit, and git lfs push fails', async () => {
    const big = noise(10_001);
    const answer = await fetch(api('objects/batch'), {
      method: 'POST',
      headers: { ...LFS_HEADERS, ...basic(owner.token) },
      body: batchBody('upload', [
        { oid: oidOf(big), size: big.length },
        { oid: oidOf(big.subarray(1)), size: big.length - 1 },
      ]),
    });
    const body = (await answer.json()) as {
      objects: { error?: { code: number; message: string }; actions?: object }[];
    };
    expect(body.objects[0]?.error?.code).toBe(422);
    expect(body.objects[0]?.error?.message).toContain('10000 bytes');
    expect(body.objects[1]?.actions).toHaveProperty('upload');

    const url = repoUrl(kiln.url, owner.user.handle, 'capped', {
      token: owner.token,
      as: 'password',
    });
    const dir = await lfsWorkTree(git, url);
    await git.commit(dir, { 'big.bin': big });
    const push = await git.fails(['push', 'origin', 'main'], { cwd: dir });
    expect(push.stderr).toContain('10000 bytes');
  });

  it('refuses an upload that is larger than the limit whatever it declared', async () => {
    const big = noise(20_000);
    const put = await fetch(api(`objects/${oidOf(big)}`), {
      method: 'PUT',
      headers: basic(owner.token),
      body: new Uint8Array(big),
    });
    expect(put.status).toBe(422);
    const chunked = await fetch(api(`objects/${oidOf(big)}`), {
      method: 'PUT',
      headers: basic(owner.token),
      body: new Blob([new Uint8Array(big)]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
  });
});

describe('SERVICE_LFS_ENABLED=false', () => {
  let kiln: TestServer;
  let owner: Person;
  useWorld(
    {
      env: { SERVICE_LFS_ENABLED: 'false' },
      people: ['owner'],
      repos: [{ owner: 'owner', name: 'off' }],
    },
    (world) => {
      kiln = world.kiln;
      owner = world.people.owner;
    },
  );

  it('answers the LFS API with 404', async () => {
    const answer = await fetch(`${kiln.url}/${owner.user.handle}/off.git/info/lfs/objects/batch`, {
      method: 'POST',
      headers: { ...LFS_HEADERS, ...basic(owner.token) },
      body: batchBody('download', []),
    });
    expect(answer.status).toBe(404);
    await answer.arrayBuffer();
  });
});
