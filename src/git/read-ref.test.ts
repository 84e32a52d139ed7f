import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRefFile, readRefFiles } from './read-ref.ts';
import type { RepoHandle } from './repo-paths.ts';
import { commitFiles, git, makeTestRepo, type TempDir } from './test-support.ts';

let tmp: TempDir;
let repo: RepoHandle;

beforeEach(async () => {
  ({ tmp, repo } = await makeTestRepo());
});
afterEach(async () => {
  await tmp.remove();
});

describe('readRefFiles', () => {
  it('reads loose and packed refs alike, and leaves out refs that do not exist', async () => {
    const main = await commitFiles(repo.path, { branch: 'main', files: { a: '1\n' } });
    const deep = await commitFiles(repo.path, { branch: 'feature/deep', files: { b: '2\n' } });
    await git(['pack-refs', '--all'], { gitDir: repo.path });
    const loose = await commitFiles(repo.path, { branch: 'loose', files: { c: '3\n' } });

    const tips = await readRefFiles(repo, [
      'refs/heads/main',
      'refs/heads/feature/deep',
      'refs/heads/loose',
      'refs/heads/missing',
      'refs/heads/main',
    ]);
    expect(Object.fromEntries(tips)).toEqual({
      'refs/heads/main': main,
      'refs/heads/feature/deep': deep,
      'refs/heads/loose': loose,
    });
  });

  it('prefers a loose ref to the packed value it replaced', async () => {
    await commitFiles(repo.path, { branch: 'main', files: { a: '1\n' } });
    await git(['pack-refs', '--all'], { gitDir: repo.path });
    const moved = await commitFiles(repo.path, { branch: 'main', files: { a: '2\n' } });
    expect(await readRefFile(repo, 'refs/heads/main')).toBe(moved);
    expect(await git(['rev-parse', 'refs/heads/main'], { gitDir: repo.path })).toBe(moved);
  });

  it('treats a symbolic ref, a directory and a missing repository as no ref', async () => {
    await commitFiles(repo.path, { branch: 'dir/inside', files: { a: '1\n' } });
    await writeFile(path.join(repo.path, 'refs', 'heads', 'sym'), 'ref: refs/heads/main\n');
    const tips = await readRefFiles(repo, ['refs/heads/sym', 'refs/heads/dir']);
    expect(tips.size).toBe(0);
    const gone = { ...repo, path: path.join(tmp.path, 'nowhere.git') };
    expect((await readRefFiles(gone, ['refs/heads/main'])).size).toBe(0);
  });

  it('refuses a name git would not accept as a ref', async () => {
    await expect(readRefFiles(repo, ['refs/heads/../../config'])).rejects.toThrow(
      'invalid reference name',
    );
  });
});
