import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRefSnapshot } from './ref-snapshot.ts';
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

/** What git itself lists, in the snapshot's form. */
async function forEachRef(): Promise<string> {
  const listed = await git(['for-each-ref', '--format=%(objectname) %(refname)'], {
    gitDir: repo.path,
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
    const main = await commitFiles(repo.path, { branch: 'main', files: { a: '1\n' } });
    await commitFiles(repo.path, { branch: 'feature/deep', files: { b: '2\n' } });
    await commitFiles(repo.path, { branch: 'gone', files: { c: '3\n' } });
    await git(['tag', '-a', '-m', 'v1', 'v1', main], { gitDir: repo.path });
    await git(['tag', 'light', main], { gitDir: repo.path });
    await git(['pack-refs', '--all'], { gitDir: repo.path });
    // Moved after packing: the loose value must win over the packed one.
    await commitFiles(repo.path, { branch: 'feature/deep', files: { d: '4\n' } });
    await commitFiles(repo.path, { branch: 'loose', files: { e: '5\n' } });
    await git(['update-ref', '-d', 'refs/heads/gone'], { gitDir: repo.path });
    await git(['symbolic-ref', 'refs/heads/alias', 'refs/heads/main'], { gitDir: repo.path });
    await git(['symbolic-ref', 'refs/heads/dangling', 'refs/heads/nowhere'], { gitDir: repo.path });
    await writeFile(path.join(repo.path, 'refs', 'heads', 'main.lock'), 'not a ref\n');

    const snapshot = await readRefSnapshot(repo.path);
    expect(snapshot).toBe(await forEachRef());
    expect(snapshot).toContain(' refs/heads/alias\n');
    expect(snapshot).not.toContain('refs/heads/gone');
    expect(snapshot).not.toContain('dangling');
  });

  it('is empty for a repository without refs', async () => {
    expect(await readRefSnapshot(repo.path)).toBe('');
    expect(await forEachRef()).toBe('');
  });
});
