import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRefSnapshot } from './ref-snapshot.ts';
import { commitFiles, git, useTestRepo } from './test-support.ts';

const fixture = useTestRepo();

/** What git itself lists, in the snapshot's form. */
async function forEachRef(): Promise<string> {
  const listed = await git(['for-each-ref', '--format=%(objectname) %(refname)'], {
    gitDir: fixture.repo.path,
  });
  return listed
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => `${line}\n`)
    .sort((a, b) => (a.slice(a.indexOf(' ')) < b.slice(b.indexOf(' ')) ? -1 : 1))
    .join('');
}

describe('readRefSnapshot', () => {
  it('lists what git for-each-ref lists: loose over packed, tags, symbolic refs, deletions', async () => {
    const main = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: '1\n' } });
    await commitFiles(fixture.repo.path, { branch: 'feature/deep', files: { b: '2\n' } });
    await commitFiles(fixture.repo.path, { branch: 'gone', files: { c: '3\n' } });
    await git(['tag', '-a', '-m', 'v1', 'v1', main], { gitDir: fixture.repo.path });
    await git(['tag', 'light', main], { gitDir: fixture.repo.path });
    await git(['pack-refs', '--all'], { gitDir: fixture.repo.path });
    // Moved after packing: the loose value must win over the packed one.
    await commitFiles(fixture.repo.path, { branch: 'feature/deep', files: { d: '4\n' } });
    await commitFiles(fixture.repo.path, { branch: 'loose', files: { e: '5\n' } });
    await git(['update-ref', '-d', 'refs/heads/gone'], { gitDir: fixture.repo.path });
    await git(['symbolic-ref', 'refs/heads/alias', 'refs/heads/main'], {
      gitDir: fixture.repo.path,
    });
    await git(['symbolic-ref', 'refs/heads/dangling', 'refs/heads/nowhere'], {
      gitDir: fixture.repo.path,
    });
    await writeFile(path.join(fixture.repo.path, 'refs', 'heads', 'main.lock'), 'not a ref\n');

    const snapshot = await readRefSnapshot(fixture.repo.path);
    expect(snapshot).toBe(await forEachRef());
    expect(snapshot).toContain(' refs/heads/alias\n');
    expect(snapshot).not.toContain('refs/heads/gone');
    expect(snapshot).not.toContain('dangling');
  });

  it('is empty for a repository without refs', async () => {
    expect(await readRefSnapshot(fixture.repo.path)).toBe('');
    expect(await forEachRef()).toBe('');
  });
});
