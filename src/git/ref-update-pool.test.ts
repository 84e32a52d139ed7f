import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Conflict, Unavailable } from '../domain/errors.ts';
import { RefUpdatePool } from './ref-update-pool.ts';
import { findRef } from './refs.ts';
import type { RepoHandle } from './repo-paths.ts';
import { commitFiles, makeTestRepo, type TempDir } from './test-support.ts';

let tmp: TempDir;
let repo: RepoHandle;
let pool: RefUpdatePool;
let first: string;
let second: string;

beforeEach(async () => {
  ({ tmp, repo } = await makeTestRepo());
  first = await commitFiles(repo.path, { branch: 'main', files: { 'a.txt': '1\n' } });
  second = await commitFiles(repo.path, { branch: 'other', files: { 'a.txt': '2\n' } });
  pool = new RefUpdatePool();
});
afterEach(async () => {
  await pool.closeAll();
  await tmp.remove();
});

describe('RefUpdatePool', () => {
  it('moves refs by compare-and-swap, many times through one process', async () => {
    await pool.update(repo, 'refs/heads/main', second, first);
    await pool.update(repo, 'refs/heads/main', first, second);
    await pool.update(repo, 'refs/heads/new', second, null);

    expect(await findRef(repo, 'refs/heads/main')).toBe(first);
    expect(await findRef(repo, 'refs/heads/new')).toBe(second);
    expect(pool.size).toBe(1);
  });

  it('refuses a stale expected value, changes nothing, and serves the next update', async () => {
    await expect(pool.update(repo, 'refs/heads/main', second, second)).rejects.toBeInstanceOf(
      Conflict,
    );
    await expect(pool.update(repo, 'refs/heads/other', first, null)).rejects.toBeInstanceOf(
      Conflict,
    );
    expect(await findRef(repo, 'refs/heads/main')).toBe(first);
    expect(await findRef(repo, 'refs/heads/other')).toBe(second);

    await pool.update(repo, 'refs/heads/main', second, first);
    expect(await findRef(repo, 'refs/heads/main')).toBe(second);
  });

  it('lets exactly one of racing updates from the same tip win', async () => {
    const tips = await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        commitFiles(repo.path, { branch: `t${n}`, files: { 'n.txt': `${n}\n` }, parents: [first] }),
      ),
    );
    const results = await Promise.allSettled(
      tips.map((tip) => pool.update(repo, 'refs/heads/main', tip, first)),
    );

    const won = results.flatMap((result, i) => (result.status === 'fulfilled' ? [tips[i]] : []));
    expect(won).toHaveLength(1);
    for (const result of results)
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(Conflict);
    expect(await findRef(repo, 'refs/heads/main')).toBe(won[0]);
  });

  it('respects the lock of another writer', async () => {
    await writeFile(path.join(repo.path, 'refs', 'heads', 'main.lock'), `${second}\n`);
    await expect(pool.update(repo, 'refs/heads/main', second, first)).rejects.toBeInstanceOf(
      Conflict,
    );
    expect(await findRef(repo, 'refs/heads/main')).toBe(first);
  });

  it('starts afresh after its process is evicted, and refuses work once closed', async () => {
    await pool.update(repo, 'refs/heads/main', second, first);
    await pool.evict(repo);
    expect(pool.size).toBe(0);
    await pool.update(repo, 'refs/heads/main', first, second);
    expect(await findRef(repo, 'refs/heads/main')).toBe(first);

    await pool.closeAll();
    expect(pool.size).toBe(0);
    await expect(pool.update(repo, 'refs/heads/main', second, first)).rejects.toBeInstanceOf(
      Unavailable,
    );
  });
});
