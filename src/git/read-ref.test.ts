import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRefFile, readRefFiles } from './read-ref.ts';
import { commitFiles, git, useTestRepo } from './test-support.ts';

const fixture = useTestRepo();

describe('readRefFiles', () => {
  it('reads loose and packed refs alike, and leaves out refs that do not exist', async () => {
    const main = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1\n' } });
    const deep = await commitFiles(fixture.repo.path, {
      branch: 'feature/deep',
      files: { b: '2\n' },
    });
    await git(['pack-refs', '--all'], { gitDir: fixture.repo.path });
    const loose = await commitFiles(fixture.repo.path, { branch: 'loose', files: { c: '3\n' } });

    const tips = await readRefFiles(fixture.repo, [
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
    await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1\n' } });
    await git(['pack-refs', '--all'], { gitDir: fixture.repo.path });
    const moved = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '2\n' } });
    expect(await readRefFile(fixture.repo, 'refs/heads/main')).toBe(moved);
    expect(await git(['rev-parse', 'refs/heads/main'], { gitDir: fixture.repo.path })).toBe(moved);
  });

  it('treats a symbolic ref, a directory and a missing repository as no ref', async () => {
    await commitFiles(fixture.repo.path, { branch: 'dir/inside', files: { a: '1\n' } });
    await writeFile(path.join(fixture.repo.path, 'refs', 'heads', 'sym'), 'ref: refs/heads/main\n');
    const tips = await readRefFiles(fixture.repo, ['refs/heads/sym', 'refs/heads/dir']);
    expect(tips.size).toBe(0);
    const gone = { ...fixture.repo, path: path.join(fixture.tmp.path, 'nowhere.git') };
    expect((await readRefFiles(gone, ['refs/heads/main'])).size).toBe(0);
  });

  it('refuses a name git would not accept as a ref', async () => {
    await expect(readRefFiles(fixture.repo, ['refs/heads/../../config'])).rejects.toThrow(
      'invalid reference name',
    );
  });
});
