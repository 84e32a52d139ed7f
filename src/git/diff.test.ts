import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Invalid, NotFound } from '../domain/errors.ts';
import { CatFilePool } from './cat-file-pool.ts';
import { diffCommits, mergeBase } from './diff.ts';
import type { RepoHandle } from './repo-paths.ts';
import { commitFiles, makeTestRepo, type TempDir } from './test-support.ts';

let tmp: TempDir;
let repo: RepoHandle;
let pool: CatFilePool;
let root: string;
let second: string;
let side: string;
let big: string;

beforeAll(async () => {
  ({ tmp, repo } = await makeTestRepo());
  root = await commitFiles(repo.path, {
    branch: 'main',
    files: { 'a.txt': 'one\ntwo\nthree\n', 'img.bin': Buffer.from([0, 1, 2, 3]) },
  });
  second = await commitFiles(repo.path, {
    branch: 'main',
    files: { 'a.txt': 'one\n2\nthree\nfour\n', 'b.txt': 'b\n', 'img.bin': null },
  });
  side = await commitFiles(repo.path, {
    branch: 'side',
    files: { 'c.txt': 'c\n' },
    parents: [root],
  });
  const many: Record<string, string> = {};
  for (let i = 0; i < 30; i++)
    many[`many/${String(i).padStart(2, '0')}.txt`] = Array.from(
      { length: 50 },
      (_, j) => `line ${j}\n`,
    ).join('');
  big = await commitFiles(repo.path, { branch: 'big', files: many, parents: [second] });
  pool = new CatFilePool();
});
afterAll(async () => {
  await pool.closeAll();
  await tmp.remove();
});

describe('diffCommits', () => {
  it('compares a commit with its first parent', async () => {
    const diff = await diffCommits(pool, repo, { to: 'main' });
    expect(diff.fromSha).toBe(root);
    expect(diff.toSha).toBe(second);
    expect(
      diff.files.map((f) => [f.status, f.oldPath, f.newPath, f.additions, f.deletions, f.binary]),
    ).toEqual([
      ['modified', 'a.txt', 'a.txt', 2, 1, false],
      ['added', null, 'b.txt', 1, 0, false],
      ['deleted', 'img.bin', null, 0, 0, true],
    ]);
    expect(diff.files[0]?.hunks[0]?.lines).toEqual([' one', '-two', '+2', ' three', '+four']);
    expect(diff.truncated).toBe(false);
  });

  it('shows a root commit as all additions', async () => {
    const diff = await diffCommits(pool, repo, { to: root });
    expect(diff.fromSha).toBeUndefined();
    expect(diff.files.map((f) => [f.status, f.newPath])).toEqual([
      ['added', 'a.txt'],
      ['added', 'img.bin'],
    ]);
  });

  it('compares any two commits with chosen context', async () => {
    const diff = await diffCommits(pool, repo, { from: 'side', to: 'main', contextLines: 0 });
    expect(diff.files.map((f) => f.newPath ?? f.oldPath)).toEqual([
      'a.txt',
      'b.txt',
      'c.txt',
      'img.bin',
    ]);
    expect(diff.files[0]?.hunks.map((h) => h.lines)).toEqual([['-two', '+2'], ['+four']]);
  });

  it('applies the file and line limits and says so', async () => {
    const files = await diffCommits(pool, repo, { to: big, maxFiles: 5 });
    expect(files.files).toHaveLength(5);
    expect(files.totalFiles).toBe(30);
    expect(files.totalAdditions).toBe(1500);
    expect(files.truncated).toBe(true);

    const lines = await diffCommits(pool, repo, { to: big, maxLines: 120 });
    expect(lines.files).toHaveLength(30);
    expect(
      lines.files.reduce((n, f) => n + f.hunks.reduce((m, h) => m + h.lines.length, 0), 0),
    ).toBe(120);
    expect(lines.truncated).toBe(true);
    expect(lines.files[2]?.truncated).toBe(true);

    const bytes = await diffCommits(pool, repo, { to: big, maxBytes: 8000 });
    expect(bytes.truncated).toBe(true);
    expect(bytes.totalFiles).toBe(30);
  });

  it('refuses unknown and option-like revisions', async () => {
    await expect(diffCommits(pool, repo, { to: 'nope' })).rejects.toBeInstanceOf(NotFound);
    await expect(diffCommits(pool, repo, { from: 'nope', to: 'main' })).rejects.toBeInstanceOf(
      NotFound,
    );
    await expect(
      diffCommits(pool, repo, { from: '--output=/tmp/x', to: 'main' }),
    ).rejects.toBeInstanceOf(Invalid);
  });
});

describe('mergeBase', () => {
  it('finds where two branches parted, or nothing', async () => {
    expect(await mergeBase(repo, 'main', 'side')).toBe(root);
    const orphan = await commitFiles(repo.path, {
      branch: 'orphan',
      files: { z: 'z' },
      parents: [],
    });
    expect(await mergeBase(repo, 'main', orphan)).toBeUndefined();
    expect(side).toBeDefined();
  });
});
