import { describe, expect, it } from 'vitest';
import type { DiffFile } from '../../git/diff.ts';
import { anchorInDiff, fileInDiff } from './review-anchor.ts';

const file: DiffFile = {
  status: 'modified',
  oldPath: 'a.txt',
  newPath: 'a.txt',
  oldMode: '100644',
  newMode: '100644',
  oldSha: '1'.repeat(40),
  newSha: '2'.repeat(40),
  similarity: undefined,
  additions: 2,
  deletions: 1,
  binary: false,
  truncated: false,
  hunks: [
    {
      oldStart: 10,
      oldLines: 4,
      newStart: 10,
      newLines: 5,
      section: 'function f()',
      lines: [' ten', '-eleven', '+ELEVEN', '+eleven and a half', ' twelve', ' thirteen'],
    },
  ],
};

describe('anchorInDiff', () => {
  it('finds new-side lines (context and added) with the hunk up to them', () => {
    expect(anchorInDiff(file, 'RIGHT', 10)).toBe('@@ -10,4 +10,5 @@ function f()\n ten');
    expect(anchorInDiff(file, 'RIGHT', 12)).toBe(
      '@@ -10,4 +10,5 @@ function f()\n ten\n-eleven\n+ELEVEN\n+eleven and a half',
    );
    expect(anchorInDiff(file, 'RIGHT', 14)).toContain(' thirteen');
  });

  it('finds old-side lines (context and removed)', () => {
    expect(anchorInDiff(file, 'LEFT', 11)).toBe('@@ -10,4 +10,5 @@ function f()\n ten\n-eleven');
    expect(anchorInDiff(file, 'LEFT', 13)).toContain(' thirteen');
  });

  it('refuses lines outside the diff', () => {
    expect(anchorInDiff(file, 'RIGHT', 9)).toBeUndefined();
    expect(anchorInDiff(file, 'RIGHT', 15)).toBeUndefined();
    expect(anchorInDiff(file, 'LEFT', 14)).toBeUndefined();
  });

  it('matches files by new path, or old path when deleted', () => {
    expect(fileInDiff([file], 'a.txt')).toBe(file);
    expect(fileInDiff([file], 'b.txt')).toBeUndefined();
    const deleted = { ...file, newPath: null, oldPath: 'gone.txt' };
    expect(fileInDiff([deleted], 'gone.txt')).toBe(deleted);
  });
});
