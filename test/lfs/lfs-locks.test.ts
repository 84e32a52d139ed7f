/**
 * `git lfs lock`, `locks` and `unlock` against a real server, and the lock check git-lfs makes
 * before a push: a writer cannot push a change to a path someone else holds. Then forks: a fork
 * reaches its parent's objects without a copy of the bytes.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basic } from '../git/fixtures.ts';
import { type GitClient, noise, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { filesUnder, installLfs, LFS_HEADERS, lfsWorkTree } from './lfs-client.ts';

let kiln: TestServer;
let git: GitClient;
let people: Record<'owner' | 'writer' | 'reader' | 'forker', Person>;
let ownerDir: string;
let writerDir: string;

const asPerson = (person: Person) => ({ token: person.token, as: 'password' }) as const;
const urlFor = (person: Person, name = 'game') =>
  repoUrl(kiln.url, people.owner.user.handle, name, asPerson(person));

useWorld(
  {
    people: ['owner', 'writer', 'reader', 'forker'],
    repos: [{ owner: 'owner', name: 'game' }],
  },
  async (world) => {
    ({ kiln, git } = world);
    people = world.people;
    await installLfs(git);
    const { owner } = people;
    for (const [who, level] of [
      ['writer', 'write'],
      ['reader', 'read'],
    ] as const) {
      await kiln.app.services.collaborators.put(
        owner.user,
        owner.user.handle,
        'game',
        people[who].user.handle,
        level,
      );
    }
    ownerDir = await lfsWorkTree(git, urlFor(owner));
    await git.ok(['config', 'lfs.locksverify', 'true'], { cwd: ownerDir });
    await git.commit(ownerDir, { 'level.bin': noise(200_000), 'hero.bin': noise(1000) });
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: ownerDir });
    writerDir = await git.clone(urlFor(people.writer));
    await git.ok(['config', 'lfs.locksverify', 'true'], { cwd: writerDir });
  },
);

describe('locks', () => {
  it('locks a path for its owner, lists it, and refuses it to anyone else', async () => {
    await git.ok(['lfs', 'lock', 'level.bin'], { cwd: ownerDir });
    const listed = JSON.parse(await git.ok(['lfs', 'locks', '--json'], { cwd: writerDir })) as {
      path: string;
      owner: { name: string };
    }[];
    expect(listed).toMatchObject([
      { path: 'level.bin', owner: { name: people.owner.user.handle } },
    ]);
    const taken = await git.fails(['lfs', 'lock', 'level.bin'], { cwd: writerDir });
    expect(taken.stderr).toMatch(/already created lock|lock/i);
  });

  it('refuses a push that changes a path another person holds, until it is unlocked', async () => {
    await git.commit(writerDir, { 'level.bin': noise(1234) }, 'change the locked level');
    const refused = await git.fails(['push', 'origin', 'main'], { cwd: writerDir });
    expect(refused.stderr).toMatch(/Cannot update locked files/);

    await git.ok(['lfs', 'unlock', 'level.bin'], { cwd: ownerDir });
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: writerDir });
  });

  it('lets only administrators remove someone else’s lock, and only with force', async () => {
    await git.ok(['lfs', 'lock', 'hero.bin'], { cwd: writerDir });
    const id = (
      JSON.parse(await git.ok(['lfs', 'locks', '--json'], { cwd: ownerDir })) as { id: string }[]
    )[0]?.id;
    const api = `${kiln.url}/${people.owner.user.handle}/game.git/info/lfs/locks/${id}/unlock`;
    const unlock = (who: Person, force: boolean) =>
      fetch(api, {
        method: 'POST',
        headers: { ...LFS_HEADERS, ...basic(who.token) },
        body: JSON.stringify({ force }),
      });
    const reader = await unlock(people.reader, true);
    expect(reader.status).toBe(403);
    expect((await unlock(people.owner, false)).status).toBe(403);
    const forced = await unlock(people.owner, true);
    expect(forced.status).toBe(200);
    expect(((await forced.json()) as { lock: { path: string } }).lock.path).toBe('hero.bin');
    expect(JSON.parse(await git.ok(['lfs', 'locks', '--json'], { cwd: ownerDir }))).toEqual([]);
  });

  it('refuses locks to readers and lists them in pages', async () => {
    const locks = `${kiln.url}/${people.owner.user.handle}/game.git/info/lfs/locks`;
    const asReader = { ...LFS_HEADERS, ...basic(people.reader.token) };
    const refused = await fetch(locks, {
      method: 'POST',
      headers: asReader,
      body: JSON.stringify({ path: 'a.bin' }),
    });
    expect(refused.status).toBe(403);
    const asOwner = { ...LFS_HEADERS, ...basic(people.owner.token) };
    for (const name of ['a.bin', 'b.bin', 'c.bin']) {
      const made = await fetch(locks, {
        method: 'POST',
        headers: asOwner,
        body: JSON.stringify({ path: name }),
      });
      expect(made.status).toBe(201);
    }
    const first = (await (await fetch(`${locks}?limit=2`, { headers: asReader })).json()) as {
      locks: { path: string }[];
      next_cursor?: string;
    };
    expect(first.locks.map((l) => l.path)).toEqual(['a.bin', 'b.bin']);
    const second = (await (
      await fetch(`${locks}?limit=2&cursor=${first.next_cursor}`, { headers: asReader })
    ).json()) as { locks: { path: string }[]; next_cursor?: string };
    expect(second).toMatchObject({ locks: [{ path: 'c.bin' }] });
    expect(second.next_cursor).toBeUndefined();
    const byPath = (await (await fetch(`${locks}?path=b.bin`, { headers: asReader })).json()) as {
      locks: { path: string }[];
    };
    expect(byPath.locks.map((l) => l.path)).toEqual(['b.bin']);
  });

  it('holds a path in every branch: a refspec or a ref narrows nothing, as in Gitea', async () => {
    const locks = `${kiln.url}/${people.owner.user.handle}/game.git/info/lfs/locks`;
    const asReader = { ...LFS_HEADERS, ...basic(people.reader.token) };
    const asWriter = { ...LFS_HEADERS, ...basic(people.writer.token) };
    const paths = async (response: Response) =>
      ((await response.json()) as { locks: { path: string }[] }).locks.map((l) => l.path);
    const all = await paths(await fetch(locks, { headers: asReader }));
    expect(all.length).toBeGreaterThan(0);
    const verified = async (ref: unknown) => {
      const response = await fetch(`${locks}/verify`, {
        method: 'POST',
        headers: asWriter,
        body: JSON.stringify({ ref }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { theirs: { path: string }[] };
      return body.theirs.map((l) => l.path);
    };
    const everyone = await verified({ name: 'refs/heads/main' });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom('refs/heads/main', 'refs/heads/other', ''), fc.string()),
        async (ref) => {
          const listed = await fetch(`${locks}?refspec=${encodeURIComponent(ref)}`, {
            headers: asReader,
          });
          expect(listed.status).toBe(200);
          expect(await paths(listed)).toEqual(all);
          expect(await verified({ name: ref })).toEqual(everyone);
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe('forks', () => {
  it('clone their parent’s objects from the moment they exist, sharing the bytes', async () => {
    const root = path.join(kiln.app.dataDir, 'lfs');
    const before = await filesUnder(root);
    const { owner, forker } = people;
    await kiln.app.services.repos.fork(forker.user, owner.user.handle, 'game', {});
    const url = repoUrl(kiln.url, forker.user.handle, 'game', asPerson(forker));
    const clone = await git.clone(url);
    const original = await readFile(path.join(ownerDir, 'hero.bin'));
    expect((await readFile(path.join(clone, 'hero.bin'))).equals(original)).toBe(true);
    expect(await filesUnder(root)).toEqual(before);
    const usage = await kiln.app.services.lfs.usage(
      (await kiln.app.services.repos.get(forker.user, forker.user.handle, 'game')).repo,
    );
    expect(usage.objects).toBeGreaterThanOrEqual(2);
  });
});
