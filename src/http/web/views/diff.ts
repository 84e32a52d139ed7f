import type { Diff, DiffFile, DiffHunk } from '../../../git/diff.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';

const STATUS_LABEL: Record<DiffFile['status'], { text: string; css: string }> = {
  added: { text: 'added', css: 'Label--success' },
  deleted: { text: 'deleted', css: 'Label--danger' },
  modified: { text: 'modified', css: '' },
  renamed: { text: 'renamed', css: 'Label--accent' },
  copied: { text: 'copied', css: 'Label--accent' },
  'type-changed': { text: 'type changed', css: 'Label--attention' },
};

function fileName(file: DiffFile): string {
  if (file.oldPath && file.newPath && file.oldPath !== file.newPath) {
    return `${file.oldPath} → ${file.newPath}`;
  }
  return file.newPath ?? file.oldPath ?? '';
}

function counts(file: { additions: number; deletions: number }): Html {
  return html`<span class="f6 text-mono"><span class="color-fg-success">+${file.additions}</span> <span class="color-fg-danger">−${file.deletions}</span></span>`;
}

/** A hunk range as git writes it: `12,3`, or just `12` for one line. */
function range(start: number, lines: number): string {
  return lines === 1 ? `${start}` : `${start},${lines}`;
}

/**
 * Hooks for pages that hang things off diff lines (a pull request's review comments): a link on
 * each line number, and rows to show after a line.
 */
export type DiffLineHooks = {
  readonly link?: (file: DiffFile, side: 'LEFT' | 'RIGHT', line: number) => string | undefined;
  readonly after?: (file: DiffFile, side: 'LEFT' | 'RIGHT', line: number) => Html | null;
};

function lineNumber(
  file: DiffFile,
  side: 'LEFT' | 'RIGHT',
  line: number,
  hooks: DiffLineHooks | undefined,
): Html {
  const href = hooks?.link?.(file, side, line);
  return href
    ? html`<td class="kiln-ln"><a href="${href}" aria-label="Comment on ${side === 'LEFT' ? 'old ' : ''}line ${line}">${line}</a></td>`
    : html`<td class="kiln-ln">${line}</td>`;
}

/** One hunk as table rows: the `@@` line, then each line with its old and new numbers. */
function hunkRows(hunk: DiffHunk, file: DiffFile, hooks?: DiffLineHooks): Html[] {
  const rows: Html[] = [
    html`<tr class="kiln-hunk"><td class="kiln-ln" colspan="2"></td><td class="kiln-lc">@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@ ${hunk.section}</td></tr>`,
  ];
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  for (const line of hunk.lines) {
    const mark = line[0];
    const text = line.slice(1);
    if (mark === '+') {
      rows.push(
        html`<tr class="kiln-add"><td class="kiln-ln"></td>${lineNumber(file, 'RIGHT', newLine, hooks)}<td class="kiln-lc"><span class="kiln-mark" aria-label="added">+</span>${text}</td></tr>`,
        hooks?.after?.(file, 'RIGHT', newLine) ?? html``,
      );
      newLine += 1;
    } else if (mark === '-') {
      rows.push(
        html`<tr class="kiln-del">${lineNumber(file, 'LEFT', oldLine, hooks)}<td class="kiln-ln"></td><td class="kiln-lc"><span class="kiln-mark" aria-label="removed">−</span>${text}</td></tr>`,
        hooks?.after?.(file, 'LEFT', oldLine) ?? html``,
      );
      oldLine += 1;
    } else if (mark === '\\') {
      rows.push(
        html`<tr><td class="kiln-ln" colspan="2"></td><td class="kiln-lc color-fg-muted">${text.trim()}</td></tr>`,
      );
    } else {
      rows.push(
        html`<tr><td class="kiln-ln">${oldLine}</td>${lineNumber(file, 'RIGHT', newLine, hooks)}<td class="kiln-lc"><span class="kiln-mark"> </span>${text}</td></tr>`,
        hooks?.after?.(file, 'RIGHT', newLine) ?? html``,
        hooks?.after?.(file, 'LEFT', oldLine) ?? html``,
      );
      oldLine += 1;
      newLine += 1;
    }
  }
  return rows;
}

function fileBody(file: DiffFile, hooks?: DiffLineHooks): Html {
  if (file.binary) return html`<div class="Box-body color-fg-muted">Binary file not shown.</div>`;
  if (file.hunks.length === 0) {
    const why = file.truncated
      ? 'This change is not shown: the diff is too large.'
      : file.status === 'renamed'
        ? 'File renamed without changes.'
        : file.oldMode !== file.newMode
          ? `File mode changed from ${file.oldMode} to ${file.newMode}.`
          : 'No changes to show.';
    return html`<div class="Box-body color-fg-muted">${why}</div>`;
  }
  return html`<div class="kiln-code kiln-diff"><table><tbody>${file.hunks.map((hunk) => hunkRows(hunk, file, hooks))}</tbody></table></div>
    ${file.truncated ? html`<div class="Box-body color-fg-muted f6 border-top">Some changes in this file are not shown.</div>` : null}`;
}

/** The file list of a diff: each file with its status and line counts, linking to its section. */
export function diffFileList(diff: Diff): Html {
  const items = diff.files.map(
    (file, index) => html`<li class="Box-row py-2 d-flex flex-items-center kiln-gap">
      <span class="Label ${STATUS_LABEL[file.status].css}">${STATUS_LABEL[file.status].text}</span>
      <a class="flex-auto kiln-break text-mono f6" href="#diff-${index}">${fileName(file)}</a>
      ${file.binary ? html`<span class="f6 color-fg-muted">binary</span>` : counts(file)}
    </li>`,
  );
  return html`<details class="Box mb-3 kiln-filelist" open>
    <summary class="Box-header">${icon('file-diff')} ${diff.totalFiles} changed ${diff.totalFiles === 1 ? 'file' : 'files'} with <span class="color-fg-success">${diff.totalAdditions} ${diff.totalAdditions === 1 ? 'addition' : 'additions'}</span> and <span class="color-fg-danger">${diff.totalDeletions} ${diff.totalDeletions === 1 ? 'deletion' : 'deletions'}</span></summary>
    <ul>${items}</ul>
  </details>`;
}

/** Every file of a diff with its hunks, and a notice when the diff was cut. */
export function diffFiles(
  diff: Diff,
  viewHref: (file: DiffFile) => string | undefined,
  hooks?: DiffLineHooks,
): Html {
  const notice = diff.truncated
    ? html`<div class="flash flash-warn mb-3" role="status">This diff is large: ${diff.totalFiles - diff.files.length > 0 ? `${diff.totalFiles - diff.files.length} files and ` : ''}some lines are not shown. Clone the repository to see all of it.</div>`
    : null;
  const sections = diff.files.map((file, index) => {
    const href = viewHref(file);
    return html`<section class="Box mb-3" id="diff-${index}" aria-label="${fileName(file)}">
      <div class="Box-header d-flex flex-items-center flex-wrap kiln-gap py-2">
        <span class="Label ${STATUS_LABEL[file.status].css}">${STATUS_LABEL[file.status].text}</span>
        <h3 class="f6 text-mono text-normal flex-auto kiln-break">${fileName(file)}</h3>
        ${file.binary ? null : counts(file)}
        ${href ? html`<a class="btn btn-sm" href="${href}">View file</a>` : null}
      </div>
      ${fileBody(file, hooks)}
    </section>`;
  });
  return html`${notice}${sections}`;
}
