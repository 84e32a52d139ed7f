import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHeadFile, rememberedHeads } from './head-file.ts';
import { git, useTestRepo } from './test-support.ts';

const fixture = useTestRepo();

describe('readHeadFile', () => {
  it('reads HEAD and remembers it', () => {
    const before = rememberedHeads();
    expect(readHeadFile(fixture.repo.path)).toBe('ref: refs/heads/main\n');
    expect(readHeadFile(fixture.repo.path)).toBe('ref: refs/heads/main\n');
    expect(rememberedHeads()).toBe(before + 1);
  });

  it('sees every change git makes, however quickly they follow', async () => {
    readHeadFile(fixture.repo.path);
    // Same length as "main", so only the file's identity tells them apart.
    for (const branch of ['next', 'main', 'dev1', 'main']) {
      await git(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { gitDir: fixture.repo.path });
      expect(readHeadFile(fixture.repo.path)).toBe(`ref: refs/heads/${branch}\n`);
    }
  });

  it('sees a detached HEAD and a rewrite in place', () => {
    readHeadFile(fixture.repo.path);
    const sha = 'a'.repeat(40);
    writeFileSync(path.join(fixture.repo.path, 'HEAD'), `${sha}\n`);
    expect(readHeadFile(fixture.repo.path)).toBe(`${sha}\n`);
  });

  it('fails as the file system does when HEAD is gone, remembered or not', () => {
    readHeadFile(fixture.repo.path);
    rmSync(path.join(fixture.repo.path, 'HEAD'));
    expect(() => readHeadFile(fixture.repo.path)).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
    expect(() => readHeadFile(path.join(fixture.repo.path, 'missing'))).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });
});
