import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readHeadFile, rememberedHeads } from './head-file.ts';
import type { RepoHandle } from './repo-paths.ts';
import { git, makeTestRepo, type TempDir } from './test-support.ts';

let tmp: TempDir;
let repo: RepoHandle;

beforeEach(async () => {
  ({ tmp, repo } = await makeTestRepo());
});
afterEach(async () => {
  await tmp.remove();
});

describe('readHeadFile', () => {
  it('reads HEAD and remembers it', () => {
    const before = rememberedHeads();
    expect(readHeadFile(repo.path)).toBe('ref: refs/heads/main\n');
    expect(readHeadFile(repo.path)).toBe('ref: refs/heads/main\n');
    expect(rememberedHeads()).toBe(before + 1);
  });

  it('sees every change git makes, however quickly they follow', async () => {
    readHeadFile(repo.path);
    // Same length as "main", so only the file's identity tells them apart.
    for (const branch of ['next', 'main', 'dev1', 'main']) {
      await git(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { gitDir: repo.path });
      expect(readHeadFile(repo.path)).toBe(`ref: refs/heads/${branch}\n`);
    }
  });

  it('sees a detached HEAD and a rewrite in place', () => {
    readHeadFile(repo.path);
    const sha = 'a'.repeat(40);
    writeFileSync(path.join(repo.path, 'HEAD'), `${sha}\n`);
    expect(readHeadFile(repo.path)).toBe(`${sha}\n`);
  });

  it('fails as the file system does when HEAD is gone, remembered or not', () => {
    readHeadFile(repo.path);
    rmSync(path.join(repo.path, 'HEAD'));
    expect(() => readHeadFile(repo.path)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    expect(() => readHeadFile(path.join(repo.path, 'missing'))).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });
});
