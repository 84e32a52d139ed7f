import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHeadFile } from './head-file.ts';
import { git, useTestRepo } from './test-support.ts';

const fixture = useTestRepo();

describe('readHeadFile', () => {
  it('reads HEAD and remembers it', () => {
    const before = fixture.repo.caches.headFiles.size;
    expect(readHeadFile(fixture.repo.path, fixture.repo.caches.headFiles)).toBe(
      'ref: refs/heads/main\n',
    );
    expect(readHeadFile(fixture.repo.path, fixture.repo.caches.headFiles)).toBe(
      'ref: refs/heads/main\n',
    );
    expect(fixture.repo.caches.headFiles.size).toBe(before + 1);
  });

  it('sees every change git makes, however quickly they follow', async () => {
    readHeadFile(fixture.repo.path, fixture.repo.caches.headFiles);
    // Same length as "main", so only the file's identity tells them apart.
    for (const branch of ['next', 'main', 'dev1', 'main']) {
      await git(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { gitDir: fixture.repo.path });
      expect(readHeadFile(fixture.repo.path, fixture.repo.caches.headFiles)).toBe(
        `ref: refs/heads/${branch}\n`,
      );
    }
  });

  it('sees a detached HEAD and a rewrite in place', () => {
    readHeadFile(fixture.repo.path, fixture.repo.caches.headFiles);
    const sha = 'a'.repeat(40);
    writeFileSync(path.join(fixture.repo.path, 'HEAD'), `${sha}\n`);
    expect(readHeadFile(fixture.repo.path, fixture.repo.caches.headFiles)).toBe(`${sha}\n`);
  });

  it('fails as the file system does when HEAD is gone, remembered or not', () => {
    readHeadFile(fixture.repo.path, fixture.repo.caches.headFiles);
    rmSync(path.join(fixture.repo.path, 'HEAD'));
    expect(() => readHeadFile(fixture.repo.path, fixture.repo.caches.headFiles)).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
    expect(() =>
      readHeadFile(path.join(fixture.repo.path, 'missing'), fixture.repo.caches.headFiles),
    ).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
