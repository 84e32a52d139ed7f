/**
 * Rows as aligned columns under a header, as `git branch -v` or `gitea admin user list` print
 * them: every column but the last padded to its widest cell, two spaces between columns.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]) {
  const all = [header, ...rows];
  const widths = header.map((_, column) =>
    Math.max(...all.map((row) => (row[column] ?? '').length)),
  );
  return all
    .map((row) =>
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A moment as `2026-05-01 14:03 UTC`: to the minute, one zone for every reader. */
export function formatTime(date: Date | null): string {
  if (date === null) return 'never';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
