/**
 * Who may reach LFS objects, as git decides who may clone and push: readers download, writers
 * upload, others get what a missing repository gets, and anonymous clients download from public
 * repositories only. Checked on the batch API and the transfer itself, then with git-lfs.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basic } from '../git/fixtures.ts';
import { type GitClient, noise, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import {
  batchBody,
  filesUnder,
  installLfs,
  LFS_HEADERS,
  lfsWorkTree,
  oidOf,
} from './lfs-client.ts';

type Who = 'owner' | 'reader' | 'outsider' | 'anonymous';
type Visibility = 'pub' | 'priv';

/** Status of a download batch and of an upload batch, by visibility and caller. */
const MATRIX: Record<Visibility, Record<Who, { download: number; upload: number }>> = {
  pub: {
    owner: { download: 200, upload: 200 },
    reader: { download: 200, upload: 403 },
    outsider: { download: 200, upload: 403 },
    anonymous: { download: 200, upload: 401 },
  },
  priv: {
    owner: { download: 200, upload: 200 },
    reader: { download: 200, upload: 403 },
    outsider: { download: 404, upload: 404 },
    anonymous: { download: 401, upload: 401 },
  },
};

const content = noise(64 * 1024);
const oid = oidOf(content);
let kiln: TestServer;
let git: GitClient;
let people: Record<'owner' | 'reader' | 'outsider', Person>;

useWorld(
  {
    people: ['owner', 'reader', 'outsider'],
    repos: [
      { owner: 'owner', name: 'pub' },
      { owner: 'owner', name: 'priv', private: true },
    ],
  },
  async (world) => {
    ({ kiln, git } = world);
    people = world.people;
    await installLfs(git);
    const { owner, reader } = people;
    for (const name of ['pub', 'priv']) {
      await kiln.app.services.collaborators.put(
        owner.user,
        owner.user.handle,
        name,
        reader.user.handle,
        'read',
      );
      const url = repoUrl(kiln.url, owner.user.handle, name, {
        token: owner.token,
        as: 'password',
      });
      const dir = await lfsWorkTree(git, url);
      await git.commit(dir, { 'model.bin': content });
      await git.ok(['push', '-q', 'origin', 'main'], { cwd: dir });
    }
  },
);

const headersOf = (who: Who) =>
  who === 'anonymous' ? LFS_HEADERS : { ...LFS_HEADERS, ...basic(people[who].token) };
const lfsUrl = (name: string, rest: string) =>
  `${kiln.url}/${people.owner.user.handle}/${name}.git/info/lfs/${rest}`;

describe('the batch API and the transfer follow git’s access rules', () => {
  for (const visibility of ['pub', 'priv'] as const) {
    for (const who of ['owner', 'reader', 'outsider', 'anonymous'] as const) {
      const expected = MATRIX[visibility][who];
      it(`${who} on ${visibility}: download ${expected.download}, upload ${expected.upload}`, async () => {
        for (const operation of ['download', 'upload'] as const) {
          const answer = await fetch(lfsUrl(visibility, 'objects/batch'), {
            method: 'POST',
            headers: headersOf(who),
            body: batchBody(operation, [{ oid, size: content.length }]),
          });
          expect(answer.status, operation).toBe(expected[operation]);
          if (answer.status === 401) {
            expect(answer.headers.get('lfs-authenticate')).toMatch(/^Basic realm=/);
          }
          await answer.arrayBuffer();
        }
        const get = await fetch(lfsUrl(visibility, `objects/${oid}`), { headers: headersOf(who) });
        expect(get.status).toBe(expected.download);
        if (get.ok) expect(Buffer.from(await get.arrayBuffer()).equals(content)).toBe(true);
        else await get.arrayBuffer();
        const put = await fetch(lfsUrl(visibility, `objects/${oid}`), {
          method: 'PUT',
          headers: headersOf(who),
          body: new Uint8Array(content),
        });
        expect(put.status).toBe(expected.upload);
        await put.arrayBuffer();
      });
    }
  }

  it('tells a repository that does not exist from a private one in no way', async () => {
    const outsider = headersOf('outsider');
    const body = batchBody('download', [{ oid, size: content.length }]);
    const missing = await fetch(
      `${kiln.url}/${people.owner.user.handle}/nope.git/info/lfs/objects/batch`,
      {
        method: 'POST',
        headers: outsider,
        body,
      },
    );
    const hidden = await fetch(lfsUrl('priv', 'objects/batch'), {
      method: 'POST',
      headers: outsider,
      body,
    });
    expect([missing.status, await missing.text()]).toEqual([hidden.status, await hidden.text()]);
  });
});

describe('an object is reached only through a repository that has it', () => {
  it('gives no one the object of another repository for knowing its id', async () => {
    const { outsider } = people;
    await kiln.app.services.repos.create(outsider.user, { name: 'mine' });
    const mine = (rest: string) => `${kiln.url}/${outsider.user.handle}/mine.git/info/lfs/${rest}`;
    const headers = headersOf('outsider');
    const objects = [{ oid, size: content.length }];
    const download = await fetch(mine('objects/batch'), {
      method: 'POST',
      headers,
      body: batchBody('download', objects),
    });
    const down = (await download.json()) as { objects: { error?: { code: number } }[] };
    expect(down.objects[0]?.error?.code).toBe(404);
    const get = await fetch(mine(`objects/${oid}`), { headers });
    expect(get.status).toBe(404);
    await get.arrayBuffer();
    // An upload is asked for in full: having the bytes is the only proof.
    const upload = await fetch(mine('objects/batch'), {
      method: 'POST',
      headers,
      body: batchBody('upload', objects),
    });
    const up = (await upload.json()) as { objects: { actions?: object }[] };
    expect(up.objects[0]?.actions).toHaveProperty('upload');
  });
});

describe('git-lfs clones with the same rules', () => {
  it('gives anonymous clients a public repository’s objects', async () => {
    const clone = await git.clone(repoUrl(kiln.url, people.owner.user.handle, 'pub'));
    expect((await readFile(path.join(clone, 'model.bin'))).equals(content)).toBe(true);
  });

  it('gives a reader a private repository’s objects, and an outsider nothing', async () => {
    const owner = people.owner.user.handle;
    const reader = { token: people.reader.token, as: 'password' } as const;
    const clone = await git.clone(repoUrl(kiln.url, owner, 'priv', reader));
    expect((await readFile(path.join(clone, 'model.bin'))).equals(content)).toBe(true);
    const outsider = { token: people.outsider.token, as: 'password' } as const;
    await git.fails([
      'clone',
      '-q',
      repoUrl(kiln.url, owner, 'priv', outsider),
      await git.tempDir(),
    ]);
  });
});

describe('object ids never reach a path unless they are 64 lower-case hex digits', () => {
  it('refuses every other id with 422 and writes nothing', async () => {
    const root = path.join(kiln.app.dataDir, 'lfs');
    const before = await filesUnder(root);
    const headers = headersOf('owner');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 80 }), fc.stringMatching(/^[0-9a-fA-F./%]{60,70}$/)),
        async (candidate) => {
          fc.pre(!/^[0-9a-f]{64}$/.test(candidate));
          const batch = await fetch(lfsUrl('priv', 'objects/batch'), {
            method: 'POST',
            headers,
            body: batchBody('upload', [{ oid: candidate, size: 1 }]),
          });
          const answer = (await batch.json()) as { objects: { error?: { code: number } }[] };
          expect(answer.objects[0]?.error?.code).toBe(422);
          const put = await fetch(lfsUrl('priv', `objects/${encodeURIComponent(candidate)}`), {
            method: 'PUT',
            headers,
            body: 'x',
          });
          // 404 when the encoded id changes the route (an empty one, or one with a slash).
          expect([404, 422]).toContain(put.status);
          await put.arrayBuffer();
        },
      ),
      { numRuns: 60 },
    );
    expect(await filesUnder(root)).toEqual(before);
  });
});
