/**
 * Cache scoping as GitHub has it, over generated sequences of saves and restores by runs of
 * branches, pull requests and pull requests from forks: a restore finds an entry exactly when
 * the entry's ref is one the reader may read, and never anything a pull request wrote unless
 * the reader is that pull request. Then the size limit (least recently used go first) and the
 * REST list and deletions, writers only.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { makeRepo } from '../git/fixtures.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';
import { type RunShape, runningTask } from './cache-support.ts';

let kiln: TestServer;
let owner: { user: User; token: string };
let reader: { user: User; token: string };
useWorld(
  { people: ['owner', 'reader'], env: { SERVICE_CI_CACHE_SIZE: String(1024 * 1024) } },
  (world) => {
    kiln = world.kiln;
    owner = world.people.owner;
    reader = world.people.reader;
  },
);

const VERSION = 'v1';

/** A fresh repository (default branch `main`) and its id. */
async function freshRepo(): Promise<{ id: string; name: string }> {
  const { name } = await makeRepo(kiln, owner.user, { autoInit: true });
  const { repo } = await kiln.app.services.repos.get(owner.user, owner.user.handle, name);
  return { id: repo.id, name };
}

/** Saves `bytes` under `key` as a task of `shape`'s run; false when the key was taken. */
async function save(repoId: string, shape: RunShape, key: string, bytes: Buffer) {
  const caches = kiln.app.services.ciCaches;
  const { taskId } = await runningTask(kiln, repoId, shape);
  const id = await caches.reserve(taskId, key, VERSION, bytes.length).catch(() => undefined);
  if (id === undefined) return false;
  await caches.upload(taskId, id, { start: 0, end: bytes.length - 1 }, Readable.from([bytes]));
  await caches.commit(taskId, id, bytes.length);
  return true;
}

/** The ref of the entry a task of `shape` restores for `keys`, or undefined on a miss. */
async function restore(repoId: string, shape: RunShape, keys: string[]) {
  const { taskId } = await runningTask(kiln, repoId, shape);
  const hit = await kiln.app.services.ciCaches.find(taskId, keys, VERSION);
  return hit && { scope: hit.entry.scope, key: hit.entry.key };
}

const runShape = fc.oneof(
  fc.constantFrom('main', 'dev', 'feature').map((b) => ({ ref: `refs/heads/${b}` })),
  fc.record({
    ref: fc.constantFrom(1, 2).map((n) => `refs/pull/${n}/head`),
    baseRef: fc.constantFrom('main', 'dev'),
    fork: fc.boolean(),
  }),
);

/** Who may read what a run of `writer` saved, stated directly from GitHub's documentation. */
function mayRead(reader: RunShape, writerRef: string): boolean {
  const base = reader.baseRef ? `refs/heads/${reader.baseRef}` : undefined;
  if (reader.fork) return writerRef === base;
  return writerRef === reader.ref || writerRef === base || writerRef === 'refs/heads/main';
}

describe('cache scoping', () => {
  it('restores exactly what the reader may read, for generated saves and restores', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(runShape, fc.constantFrom('k1', 'k2')), { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(runShape, fc.constantFrom('k1', 'k2')), { minLength: 1, maxLength: 4 }),
        async (saves, reads) => {
          const repo = await freshRepo();
          const written: { ref: string; key: string }[] = [];
          for (const [shape, key] of saves) {
            if (await save(repo.id, shape, key, Buffer.from(`${shape.ref}:${key}`))) {
              written.push({ ref: shape.ref, key });
            }
          }
          for (const [shape, key] of reads) {
            const hit = await restore(repo.id, shape, [key]);
            const readable = written.filter((w) => w.key === key && mayRead(shape, w.ref));
            expect(hit !== undefined, JSON.stringify({ shape, key, written })).toBe(
              readable.length > 0,
            );
            if (hit) expect(mayRead(shape, hit.scope)).toBe(true);
          }
        },
      ),
      { numRuns: 12 },
    );
  });

  it('prefers the own ref, then the base, then the default branch, and exact keys first', async () => {
    const repo = await freshRepo();
    await save(repo.id, { ref: 'refs/heads/main' }, 'deps-a', Buffer.from('main'));
    await save(repo.id, { ref: 'refs/heads/dev' }, 'deps-b', Buffer.from('dev'));
    const pull = { ref: 'refs/pull/7/head', baseRef: 'dev' };
    expect(await restore(repo.id, pull, ['deps-'])).toEqual({
      scope: 'refs/heads/dev',
      key: 'deps-b',
    });
    await save(repo.id, pull, 'deps-c', Buffer.from('pull'));
    expect((await restore(repo.id, pull, ['deps-']))?.key).toBe('deps-c');
    expect((await restore(repo.id, pull, ['deps-a', 'deps-']))?.key).toBe('deps-c');
    await save(repo.id, pull, 'DEPS-A', Buffer.from('pull exact'));
    expect((await restore(repo.id, pull, ['deps-a']))?.scope).toBe('refs/pull/7/head');
    // The pull's entries stay its own: its base and the default branch never see them.
    expect((await restore(repo.id, { ref: 'refs/heads/dev' }, ['deps-c']))?.key).toBeUndefined();
    expect(await restore(repo.id, { ref: 'refs/heads/main' }, ['deps-c'])).toBeUndefined();
  });

  it('keeps a repository under its size limit by dropping the least recently used', async () => {
    const repo = await freshRepo();
    const part = Buffer.alloc(400 * 1024, 1);
    const main = { ref: 'refs/heads/main' };
    await save(repo.id, main, 'one', part);
    await save(repo.id, main, 'two', part);
    expect(await restore(repo.id, main, ['one'])).toBeDefined();
    await save(repo.id, main, 'three', part);
    expect(await restore(repo.id, main, ['two'])).toBeUndefined();
    expect(await restore(repo.id, main, ['one'])).toBeDefined();
    expect(await restore(repo.id, main, ['three'])).toBeDefined();
    // More than the whole limit is refused before a byte is sent.
    const { taskId } = await runningTask(kiln, repo.id, main);
    await expect(
      kiln.app.services.ciCaches.reserve(taskId, 'huge', VERSION, 2 * 1024 * 1024),
    ).rejects.toThrow(/more than this repository keeps/);
  });

  it('lists and deletes entries through REST, for writers only', async () => {
    const repo = await freshRepo();
    await save(repo.id, { ref: 'refs/heads/main' }, 'Lint-1', Buffer.from('a'));
    await save(repo.id, { ref: 'refs/heads/dev' }, 'lint-1', Buffer.from('bb'));
    await save(repo.id, { ref: 'refs/heads/dev' }, 'build-1', Buffer.from('ccc'));
    const path = `/repos/${owner.user.handle}/${repo.name}/actions/caches`;
    const listed = await apiCall(kiln.url, path, { token: owner.token });
    expect(listed.status).toBe(200);
    const body = listed.body as { total_count: number; actions_caches: { key: string }[] };
    expect(body.total_count).toBe(3);
    expect(Object.keys(body.actions_caches[0] ?? {}).sort()).toEqual(
      ['created_at', 'id', 'key', 'last_accessed_at', 'ref', 'size_in_bytes', 'version'].sort(),
    );
    const onDev = await apiCall(kiln.url, `${path}?ref=refs/heads/dev&key=lint`, {
      token: owner.token,
    });
    expect((onDev.body as { total_count: number }).total_count).toBe(1);
    expect((await apiCall(kiln.url, path, { token: reader.token })).status).toBe(403);

    const byKey = await apiCall(kiln.url, `${path}?key=lint-1&ref=refs/heads/main`, {
      method: 'DELETE',
      token: owner.token,
    });
    expect(byKey.status).toBe(200);
    expect((byKey.body as { total_count: number }).total_count).toBe(1);
    const left = (await apiCall(kiln.url, path, { token: owner.token })).body as {
      actions_caches: { id: number; key: string }[];
    };
    expect(left.actions_caches.map((c) => c.key).sort()).toEqual(['build-1', 'lint-1']);
    const id = left.actions_caches[0]?.id ?? 0;
    const one = await apiCall(kiln.url, `${path}/${id}`, { method: 'DELETE', token: owner.token });
    expect(one.status).toBe(204);
    const again = await apiCall(kiln.url, `${path}/${id}`, {
      method: 'DELETE',
      token: owner.token,
    });
    expect(again.status).toBe(404);
    const missingKey = await apiCall(kiln.url, path, { method: 'DELETE', token: owner.token });
    expect(missingKey.status).toBe(422);
  });

  it('sweeps abandoned uploads and entries idle for a week', async () => {
    const repo = await freshRepo();
    const main = { ref: 'refs/heads/main' };
    const caches = kiln.app.services.ciCaches;
    await save(repo.id, main, 'idle', Buffer.from('idle'));
    await save(repo.id, main, 'fresh', Buffer.from('fresh'));
    const { taskId } = await runningTask(kiln, repo.id, main);
    const abandoned = await caches.reserve(taskId, 'abandoned', VERSION, 10);
    await caches.upload(
      taskId,
      abandoned,
      { start: 0, end: 4 },
      Readable.from([Buffer.from('half ')]),
    );
    const db = kiln.app.database.db;
    const longAgo = Date.now() - 8 * 86_400_000;
    await db
      .updateTable('ci_caches')
      .set({ updated_at: longAgo })
      .where('id', '=', abandoned)
      .execute();
    await db
      .updateTable('ci_caches')
      .set({ last_accessed_at: longAgo })
      .where('cache_key', '=', 'idle')
      .where('repo_id', '=', repo.id)
      .execute();
    await caches.sweep();
    const left = await db
      .selectFrom('ci_caches')
      .select('cache_key')
      .where('repo_id', '=', repo.id)
      .execute();
    expect(left.map((row) => row.cache_key)).toEqual(['fresh']);
    // The abandoned upload cannot be finished any more.
    await expect(caches.commit(taskId, abandoned, 5)).rejects.toThrow(/no such cache/);
  });

  it('removes the archives of a deleted repository’s entries', async () => {
    const repo = await freshRepo();
    await save(repo.id, { ref: 'refs/heads/main' }, 'gone', Buffer.from('soon gone'));
    const root = join(kiln.app.dataDir, 'ci-caches');
    const files = async () =>
      (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.tar'));
    const before = await files();
    await kiln.app.services.repos.delete(owner.user, owner.user.handle, repo.name);
    // Each sweep checks one of the 256 shards in turn.
    for (let i = 0; i < 256; i++) await kiln.app.services.ciCaches.sweep();
    const after = await files();
    expect(before.length - after.length).toBe(1);
  });
});
