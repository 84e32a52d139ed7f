import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasBranches, readHeadState } from './branches-present.ts';
import { readDefaultBranch } from './refs.ts';
import { noteRepositoryChange, REUSE_WINDOW_MS } from './repo-changes.ts';
import { commitFiles, git, useTestRepo } from './test-support.ts';

const fixture = useTestRepo();

describe('readHeadState', () => {
  it('finds a new repository empty, on its default branch', async () => {
    expect(await readHeadState(fixture.repo)).toEqual({ defaultBranch: 'main', empty: true });
  });

  it('is not empty once the default branch exists', async () => {
    await commitFiles(fixture.repo.path, { branch: 'main', files: { a: 'a\n' } });
    expect(await readHeadState(fixture.repo)).toEqual({ defaultBranch: 'main', empty: false });
  });

  it('is not empty when only another branch exists, loose or packed', async () => {
    await commitFiles(fixture.repo.path, { branch: 'feature/x', files: { a: 'a\n' } });
    expect(await readHeadState(fixture.repo)).toEqual({ defaultBranch: 'main', empty: false });
    await git(['pack-refs', '--all'], { gitDir: fixture.repo.path });
    expect(await readHeadState(fixture.repo)).toEqual({ defaultBranch: 'main', empty: false });
  });

  it('is not empty when the default branch is packed', async () => {
    await commitFiles(fixture.repo.path, { branch: 'main', files: { a: 'a\n' } });
    await git(['pack-refs', '--all'], { gitDir: fixture.repo.path });
    expect(await readHeadState(fixture.repo)).toEqual({ defaultBranch: 'main', empty: false });
  });

  it('is empty again when the last branch is deleted, and agrees with hasBranches', async () => {
    await commitFiles(fixture.repo.path, { branch: 'main', files: { a: 'a\n' } });
    await git(['update-ref', '-d', 'refs/heads/main'], { gitDir: fixture.repo.path });
    expect(await readHeadState(fixture.repo)).toEqual({ defaultBranch: 'main', empty: true });
    expect(await hasBranches(fixture.repo)).toBe(false);
  });

  it('is empty when the default branch name is only a directory of branches that are gone', async () => {
    await git(['symbolic-ref', 'HEAD', 'refs/heads/release'], { gitDir: fixture.repo.path });
    await commitFiles(fixture.repo.path, { branch: 'release/1.0', files: { a: 'a\n' } });
    expect(await readHeadState(fixture.repo)).toEqual({ defaultBranch: 'release', empty: false });
    await git(['update-ref', '-d', 'refs/heads/release/1.0'], { gitDir: fixture.repo.path });
    mkdirSync(path.join(fixture.repo.path, 'refs', 'heads', 'release'), { recursive: true });
    expect(await readHeadState(fixture.repo)).toEqual({ defaultBranch: 'release', empty: true });
  });

  it('has no default branch when HEAD is detached', async () => {
    const sha = await commitFiles(fixture.repo.path, { branch: 'main', files: { a: 'a\n' } });
    await git(['update-ref', '--no-deref', 'HEAD', sha], { gitDir: fixture.repo.path });
    expect(await readHeadState(fixture.repo)).toEqual({ defaultBranch: undefined, empty: false });
  });
});

describe('readHeadState, reused for a moment', () => {
  // HEAD rewritten by hand, as another process would: Kiln has not been told.
  const pointHeadBehindKilnsBack = (branch: string) => {
    rmSync(path.join(fixture.repo.path, 'HEAD'));
    writeFileSync(path.join(fixture.repo.path, 'HEAD'), `ref: refs/heads/${branch}\n`);
  };

  it('sees a change made by others once the window is over, not before', async () => {
    const start = performance.now();
    expect((await readHeadState(fixture.repo, start)).defaultBranch).toBe('main');
    pointHeadBehindKilnsBack('trunk');
    expect((await readHeadState(fixture.repo, start + REUSE_WINDOW_MS / 2)).defaultBranch).toBe(
      'main',
    );
    expect((await readHeadState(fixture.repo, start + REUSE_WINDOW_MS)).defaultBranch).toBe(
      'trunk',
    );
  });

  it('sees at once what Kiln changed, inside the window', async () => {
    const start = performance.now();
    expect(await readHeadState(fixture.repo, start)).toEqual({
      defaultBranch: 'main',
      empty: true,
    });
    await commitFiles(fixture.repo.path, { branch: 'main', files: { a: 'a\n' } });
    expect(await readHeadState(fixture.repo, start)).toEqual({
      defaultBranch: 'main',
      empty: false,
    });
    pointHeadBehindKilnsBack('trunk');
    noteRepositoryChange();
    expect((await readHeadState(fixture.repo, start)).defaultBranch).toBe('trunk');
  });
});

describe('readDefaultBranch', () => {
  it('reads a HEAD longer than one small read', async () => {
    const long = `${'segment/'.repeat(150)}end`;
    await git(['symbolic-ref', 'HEAD', `refs/heads/${long}`], { gitDir: fixture.repo.path });
    expect(await readDefaultBranch(fixture.repo)).toBe(long);
  });
});
