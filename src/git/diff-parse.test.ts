import { describe, expect, it } from 'vitest';
import { parseDiff } from './diff-parse.ts';

// Real output of `git diff --raw --numstat -p -z --no-abbrev -M` (git 2.39): a binary change, a
// rename with a mode change and edits, a deletion of a path with a space, and an addition of a
// non-ASCII path (which the patch section quotes and the raw section does not).
const MIXED = Buffer.from(
  ':100644 100644 d5d0b8b4c4c9e936890870f6799cfbb5ba984470 4a270318359d8c2a960136495bceeae9eee22424 M\u0000bin\u0000:100644 100755 de980441c3ab03a8c07dda1ad27b8a11f39deb1e a7bc997ebe8cf84988b83d2e83f1d193124fe593 R050\u0000f.txt\u0000g.txt\u0000:100644 000000 45b983be36b73c0788dc9cbcb76cbb80fc7bb057 0000000000000000000000000000000000000000 D\u0000sp ace.txt\u0000:000000 100644 0000000000000000000000000000000000000000 3e757656cf36eca53338e520d134963a44f793f8 A\u0000\u00f1.txt\u0000-\t-\tbin\u00002\t1\t\u0000f.txt\u0000g.txt\u00000\t1\tsp ace.txt\u00001\t0\t\u00f1.txt\u0000\u0000diff --git a/bin b/bin\nindex d5d0b8b..4a27031 100644\nBinary files a/bin and b/bin differ\ndiff --git a/f.txt b/g.txt\nold mode 100644\nnew mode 100755\nsimilarity index 50%\nrename from f.txt\nrename to g.txt\nindex de98044..a7bc997\n--- a/f.txt\n+++ b/g.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\ndiff --git a/sp ace.txt b/sp ace.txt\ndeleted file mode 100644\nindex 45b983b..0000000\n--- a/sp ace.txt\t\n+++ /dev/null\n@@ -1 +0,0 @@\n-hi\ndiff --git "a/\\303\\261.txt" "b/\\303\\261.txt"\nnew file mode 100644\nindex 0000000..3e75765\n--- /dev/null\n+++ "b/\\303\\261.txt"\n@@ -0,0 +1 @@\n+new\n',
);
// A regular file turned into a symlink: one raw entry, two patch blocks.
const TYPE_CHANGE = Buffer.from(
  ':100755 120000 a7bc997ebe8cf84988b83d2e83f1d193124fe593 c5e82d74585d15d6ea821b5f23cd65624190f244 T\u0000g.txt\u00001\t4\tg.txt\u0000\u0000diff --git a/g.txt b/g.txt\ndeleted file mode 100755\nindex a7bc997..0000000\n--- a/g.txt\n+++ /dev/null\n@@ -1,4 +0,0 @@\n-a\n-B\n-c\n-d\ndiff --git a/g.txt b/g.txt\nnew file mode 120000\nindex 0000000..c5e82d7\n--- /dev/null\n+++ b/g.txt\n@@ -0,0 +1 @@\n+bin\n\\ No newline at end of file\n',
);

const wide = { maxFiles: 100, maxLines: 1000 };

describe('parseDiff', () => {
  it('reads statuses, paths, counts, modes and hunks', () => {
    const diff = parseDiff(MIXED, wide);
    expect(diff.totalFiles).toBe(4);
    expect(diff.totalAdditions).toBe(3);
    expect(diff.totalDeletions).toBe(2);
    expect(diff.truncated).toBe(false);
    const [bin, renamed, deleted, added] = diff.files;
    expect(bin).toMatchObject({
      status: 'modified',
      oldPath: 'bin',
      newPath: 'bin',
      binary: true,
      additions: 0,
      hunks: [],
    });
    expect(renamed).toMatchObject({
      status: 'renamed',
      oldPath: 'f.txt',
      newPath: 'g.txt',
      oldMode: '100644',
      newMode: '100755',
      similarity: 50,
      additions: 2,
      deletions: 1,
      newSha: 'a7bc997ebe8cf84988b83d2e83f1d193124fe593',
    });
    expect(renamed?.hunks).toEqual([
      {
        oldStart: 1,
        oldLines: 3,
        newStart: 1,
        newLines: 4,
        section: '',
        lines: [' a', '-b', '+B', ' c', '+d'],
      },
    ]);
    expect(deleted).toMatchObject({
      status: 'deleted',
      oldPath: 'sp ace.txt',
      newPath: null,
      deletions: 1,
    });
    expect(deleted?.hunks[0]).toMatchObject({
      oldStart: 1,
      oldLines: 1,
      newStart: 0,
      newLines: 0,
      lines: ['-hi'],
    });
    expect(added).toMatchObject({ status: 'added', oldPath: null, newPath: 'ñ.txt', additions: 1 });
    expect(added?.hunks[0]?.lines).toEqual(['+new']);
  });

  it('gives a type change both of its patch blocks', () => {
    const diff = parseDiff(TYPE_CHANGE, wide);
    expect(diff.files).toHaveLength(1);
    const [file] = diff.files;
    expect(file).toMatchObject({
      status: 'type-changed',
      oldMode: '100755',
      newMode: '120000',
      additions: 1,
      deletions: 4,
    });
    expect(file?.hunks.map((h) => h.lines)).toEqual([
      ['-a', '-B', '-c', '-d'],
      ['+bin', '\\ No newline at end of file'],
    ]);
  });

  it('keeps at most maxFiles files but counts them all', () => {
    const diff = parseDiff(MIXED, { maxFiles: 2, maxLines: 1000 });
    expect(diff.files.map((f) => f.newPath ?? f.oldPath)).toEqual(['bin', 'g.txt']);
    expect(diff.totalFiles).toBe(4);
    expect(diff.totalAdditions).toBe(3);
    expect(diff.truncated).toBe(true);
  });

  it('stops adding hunk lines at maxLines and marks the files it cut', () => {
    const diff = parseDiff(MIXED, { maxFiles: 100, maxLines: 3 });
    expect(diff.truncated).toBe(true);
    const [, renamed, deleted, added] = diff.files;
    expect(renamed?.hunks[0]?.lines).toEqual([' a', '-b', '+B']);
    expect(renamed?.truncated).toBe(true);
    expect(deleted?.hunks).toEqual([]);
    expect(deleted?.truncated).toBe(true);
    expect(added?.truncated).toBe(true);
    // Line counts stay complete.
    expect(added?.additions).toBe(1);
  });

  it('reads an empty diff', () => {
    expect(parseDiff(Buffer.alloc(0), wide)).toEqual({
      files: [],
      totalFiles: 0,
      totalAdditions: 0,
      totalDeletions: 0,
      truncated: false,
    });
  });

  it('survives output cut anywhere', () => {
    for (let end = 0; end < MIXED.length; end += 7) {
      const diff = parseDiff(MIXED.subarray(0, end), wide, true);
      expect(diff.truncated).toBe(true);
      expect(diff.files.length).toBeLessThanOrEqual(4);
    }
  });
});
