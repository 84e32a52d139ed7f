import type { DiffFile } from '../../git/diff.ts';

export type Side = 'RIGHT' | 'LEFT';

/**
 * Where a line-review comment sits in a file's diff: `line` counts on the new side (RIGHT) or
 * the old side (LEFT). Returns the hunk text up to and including that line (`diff_hunk`, as
 * GitHub shows above a comment), or undefined when the line is not part of the diff.
 */
export function anchorInDiff(file: DiffFile, side: Side, line: number): string | undefined {
  for (const hunk of file.hunks) {
    const header = `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@${hunk.section ? ` ${hunk.section}` : ''}`;
    let oldLine = hunk.oldStart;
    let newLine = hunk.newStart;
    for (let i = 0; i < hunk.lines.length; i++) {
      const text = hunk.lines[i] ?? '';
      const kind = text[0];
      if (kind === '\\') continue;
      const onNew = kind === ' ' || kind === '+';
      const onOld = kind === ' ' || kind === '-';
      if (
        (side === 'RIGHT' && onNew && newLine === line) ||
        (side === 'LEFT' && onOld && oldLine === line)
      ) {
        return [header, ...hunk.lines.slice(0, i + 1)].join('\n');
      }
      if (onNew) newLine++;
      if (onOld) oldLine++;
    }
  }
  return undefined;
}

/** The file of a diff that a comment path names (new path, or old path for deleted files). */
export function fileInDiff(files: readonly DiffFile[], path: string): DiffFile | undefined {
  return files.find(
    (file) => file.newPath === path || (file.newPath === null && file.oldPath === path),
  );
}
