import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Invalid, NotFound } from '../domain/errors.ts';
import { createGit, type GitStore } from './git-store.ts';
import { commitFiles, makeTempDir, type TempDir } from './test-support.ts';

let tmp: TempDir;
let git: GitStore;
beforeEach(async () => {
  tmp = await makeTempDir();
  git = createGit({ root: path.join(tmp.path, 'repos'), catFileIdleMs: 1000, catFileMax: 4 });
});
afterEach(async () => {
  await git.close();
  await tmp.remove();
});

describe('GitStore', () => {
  it('drives a repository from creation to deletion by reference only', async () => {
    const ref = { owner: 'Alice', name: 'Tools' };
    await git.initBare(ref, { defaultBranch: 'main' });
    const sha = await commitFiles(git.handle(ref).path, {
      branch: 'main',
      files: { 'a.txt': 'a\n' },
    });
    expect(await git.resolveCommit(ref, 'main')).toBe(sha);
    expect((await git.readBlob(ref, 'main', { path: 'a.txt' })).content.toString()).toBe('a\n');
    expect(git.pool.size).toBe(1);

    await git.deleteRepository(ref);
    expect(git.pool.size).toBe(0);
    expect(await git.repositoryExists(ref)).toBe(false);
    await expect(git.resolveCommit(ref, 'main')).rejects.toBeInstanceOf(NotFound);
  });

  it('refuses hostile references in every kind of operation', async () => {
    const hostile = { owner: '..', name: 'etc' };
    await expect(git.initBare(hostile, { defaultBranch: 'main' })).rejects.toBeInstanceOf(Invalid);
    await expect(git.listRefs({ owner: 'a', name: '../../b' })).rejects.toBeInstanceOf(Invalid);
    await expect(git.readCommit({ owner: '-x', name: 'y' }, 'main')).rejects.toBeInstanceOf(
      Invalid,
    );
    expect(() => git.handle({ owner: 'a/b', name: 'c' })).toThrow(Invalid);
  });

  it('sweeps leftovers and closes', async () => {
    expect(await git.sweepTempDirs(0)).toBe(0);
    await git.close();
    await expect(git.readCommit({ owner: 'a', name: 'b' }, 'main')).rejects.toThrow();
  });
});
