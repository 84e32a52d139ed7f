import type { Diff, DiffFile } from '../../../git/diff.ts';
import { SizedLru } from '../../../lib/sized-lru.ts';
import { fieldValues } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { cutMark, cutText, pacer, RenderBudget } from './render-budget.ts';

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

/**
 * Bounds of one rendered diff, in the manner of Gitea's `MaxGitDiffLineCharacters`,
 * `MaxGitDiffLines` and `MaxGitDiffFiles` (the file count is the parser's, `DEFAULT_DIFF_LIMITS`),
 * plus bytes of HTML as sent, per file and per page: a line of `<` is four times its length once
 * escaped, so lines and counts alone do not bound a page.
 */
export type DiffRenderLimits = {
  /** Characters of one line shown; the rest is marked as cut. */
  readonly lineChars: number;
  /** Lines (hunk headers included) shown of one file. */
  readonly fileLines: number;
  /** Bytes of HTML one file's rows may take. */
  readonly fileBytes: number;
  /** Bytes of HTML all files' rows may take together. */
  readonly totalBytes: number;
};

/** What a page of many files shows: each file up to 1,000 lines and 256 KiB, 1 MiB in all. */
export const DIFF_RENDER_LIMITS: DiffRenderLimits = {
  lineChars: 5000,
  fileLines: 1000,
  fileBytes: 256 * 1024,
  totalBytes: 1024 * 1024,
};

/** What the page of one file shows (its "load diff" page): the whole page's bytes for it. */
export const ONE_FILE_DIFF_LIMITS: DiffRenderLimits = {
  lineChars: 5000,
  fileLines: 5000,
  fileBytes: 1024 * 1024,
  totalBytes: 1024 * 1024,
};

/** Where a diff's readers go for what a page does not show. */
export type DiffLinks = {
  /** The file at the new side, when it has one. */
  readonly view: (file: DiffFile) => string | undefined;
  /** A page showing only this file; absent on that page itself. */
  readonly load?: (file: DiffFile) => string;
  /** The whole diff as plain text (`.diff`), when the page has one. */
  readonly raw?: string;
};

/** The rows of one line of a hunk, or null for a line with no row of its own. */
function lineRow(
  line: string,
  numbers: { oldLine: number; newLine: number },
  file: DiffFile,
  lineChars: number,
  hooks: DiffLineHooks | undefined,
): Html {
  const mark = line[0];
  const { text, left } = cutText(line.slice(1), lineChars);
  const cut = left > 0 ? cutMark(left, 'raw diff') : null;
  const { oldLine, newLine } = numbers;
  if (mark === '+') {
    return html`<tr class="kiln-add"><td class="kiln-ln"></td>${lineNumber(file, 'RIGHT', newLine, hooks)}<td class="kiln-lc"><span class="kiln-mark" aria-label="added">+</span>${text}${cut}</td></tr>`;
  }
  if (mark === '-') {
    return html`<tr class="kiln-del">${lineNumber(file, 'LEFT', oldLine, hooks)}<td class="kiln-ln"></td><td class="kiln-lc"><span class="kiln-mark" aria-label="removed">−</span>${text}${cut}</td></tr>`;
  }
  if (mark === '\\') {
    return html`<tr><td class="kiln-ln" colspan="2"></td><td class="kiln-lc color-fg-muted">${text.trim()}${cut}</td></tr>`;
  }
  return html`<tr><td class="kiln-ln">${oldLine}</td>${lineNumber(file, 'RIGHT', newLine, hooks)}<td class="kiln-lc"><span class="kiln-mark"> </span>${text}${cut}</td></tr>`;
}

/** One built row of a diff, with what the review-comment rows after it need to know. */
type BuiltRow = {
  readonly markup: Html;
  /** The line's mark (` `, `+`, `-`, `\\`), or `@` for a hunk's header. */
  readonly mark: string;
  readonly oldLine: number;
  readonly newLine: number;
};

/** A file's rows as built within the limits; `cut` says some were left out. */
type BuiltFile = {
  readonly file: DiffFile;
  readonly rows: readonly BuiltRow[];
  readonly cut: boolean;
};

/**
 * A diff whose rows are built and bounded (`prepareDiff`), ready for `diffFiles` to lay out with
 * whatever rows a page hangs after lines.
 */
export type PreparedDiff = { readonly diff: Diff; readonly files: readonly BuiltFile[] };

/** Review comments after a line: added or context lines on the new side, removed on the old. */
function afterRows(row: BuiltRow, file: DiffFile, after: DiffLineHooks['after']): Html[] {
  if (!after || row.mark === '@' || row.mark === '\\') return [];
  if (row.mark === '+') return [after(file, 'RIGHT', row.newLine) ?? html``];
  if (row.mark === '-') return [after(file, 'LEFT', row.oldLine) ?? html``];
  return [after(file, 'RIGHT', row.newLine) ?? html``, after(file, 'LEFT', row.oldLine) ?? html``];
}

/**
 * A file's hunks as rows within the limits and what is left of the page's budget. Each row is
 * measured as built, so no row past the bound is ever made into the page, and the work stops
 * with the budget; it pauses every few milliseconds for what else waits on the event loop.
 */
async function buildFile(
  file: DiffFile,
  limits: DiffRenderLimits,
  page: RenderBudget,
  pause: () => Promise<void> | undefined,
  hooks: DiffLineHooks | undefined,
): Promise<BuiltFile> {
  const own = new RenderBudget(limits.fileBytes);
  const rows: BuiltRow[] = [];
  const done = (cut: boolean): BuiltFile => ({ file, rows, cut });
  for (const hunk of file.hunks) {
    const header = html`<tr class="kiln-hunk"><td class="kiln-ln" colspan="2"></td><td class="kiln-lc">@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@ ${cutText(hunk.section, limits.lineChars).text}</td></tr>`;
    if (rows.length >= limits.fileLines || !page.take(header, own)) return done(true);
    rows.push({ markup: header, mark: '@', oldLine: hunk.oldStart, newLine: hunk.newStart });
    const numbers = { oldLine: hunk.oldStart, newLine: hunk.newStart };
    for (const line of hunk.lines) {
      const markup = lineRow(line, numbers, file, limits.lineChars, hooks);
      if (rows.length >= limits.fileLines || !page.take(markup, own)) return done(true);
      const mark = line[0] ?? ' ';
      rows.push({ markup, mark, ...numbers });
      if (mark !== '+' && mark !== '\\') numbers.oldLine += 1;
      if (mark !== '-' && mark !== '\\') numbers.newLine += 1;
      const paused = pause();
      if (paused) await paused;
    }
  }
  return done(false);
}

/**
 * Rows built for a parse's files (the git layer hands back the same parse for the same objects
 * while it keeps git's answer), 16 MiB of them at most, the least recently shown forgotten first.
 */
const builtRows = new SizedLru<
  readonly DiffFile[],
  { readonly limits: DiffRenderLimits; readonly files: BuiltFile[] }
>(16 * 1024 * 1024);

/**
 * Builds the rows of every file of a diff within `limits`: the one way a page's diff is made
 * (the commit page, a pull's files, a comparison), so every one of them is bounded alike.
 * Invariant: the rows of all files together take at most `limits.totalBytes` of HTML, whatever
 * git wrote, and each file within its own share; `diffFiles` says what was left out. `hooks.link`
 * puts a link on each line number (the rows hung after lines are added by `diffFiles`).
 */
export async function prepareDiff(
  diff: Diff,
  limits: DiffRenderLimits = DIFF_RENDER_LIMITS,
  hooks?: Pick<DiffLineHooks, 'link'>,
): Promise<PreparedDiff> {
  // Rows without per-viewer links are the same for every view of the same parse (the git layer
  // keeps one per answer it keeps): built once, they are laid out again for free.
  const shared = hooks?.link === undefined;
  const known = shared ? builtRows.get(diff.files) : undefined;
  if (known?.limits === limits) return { diff, files: known.files };
  const page = new RenderBudget(limits.totalBytes);
  const pause = pacer();
  const files: BuiltFile[] = [];
  for (const file of diff.files) {
    const binary = file.binary || file.hunks.length === 0;
    files.push(
      binary ? { file, rows: [], cut: false } : await buildFile(file, limits, page, pause, hooks),
    );
  }
  if (shared) builtRows.set(diff.files, { limits, files }, page.used + 1024);
  return { diff, files };
}

/** The note under a file cut short: the page of that file alone, and the raw diff. */
function cutNote(file: DiffFile, links: DiffLinks, shown: boolean): Html {
  const load = links.load?.(file);
  const what = shown
    ? 'This diff is too large to show whole here.'
    : 'This diff is not shown: the page already shows as much as it can.';
  return html`<div class="Box-body color-fg-muted f6 border-top kiln-diff-cut">${what}
    ${load ? html`<a href="${load}">Load diff</a>` : null}${load && links.raw ? ' · ' : null}${links.raw ? html`<a href="${links.raw}">Raw diff</a>` : null}</div>`;
}

function fileBody(built: BuiltFile, links: DiffLinks, after: DiffLineHooks['after']): Html {
  const { file, rows, cut } = built;
  if (file.binary) return html`<div class="Box-body color-fg-muted">Binary file not shown.</div>`;
  if (file.hunks.length === 0) {
    if (file.truncated) return cutNote(file, links, false);
    const why =
      file.status === 'renamed'
        ? 'File renamed without changes.'
        : file.oldMode !== file.newMode
          ? `File mode changed from ${file.oldMode} to ${file.newMode}.`
          : 'No changes to show.';
    return html`<div class="Box-body color-fg-muted">${why}</div>`;
  }
  if (rows.length === 0) return cutNote(file, links, false);
  const markup = rows.map((row) => [row.markup, ...afterRows(row, file, after)]);
  return html`<div class="kiln-code kiln-diff"><table><tbody>${markup}</tbody></table></div>
    ${cut || file.truncated ? cutNote(file, links, true) : null}`;
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

/**
 * Every file of a prepared diff (`prepareDiff`) with its rows, the rows `after` hangs after
 * lines (a pull's review comments), and a note on everything left out: each file cut short
 * links to the page of that file alone and to the raw diff.
 */
export function diffFiles(
  prepared: PreparedDiff,
  links: DiffLinks,
  after?: DiffLineHooks['after'],
): Html {
  const { diff } = prepared;
  const hidden = diff.totalFiles - diff.files.length;
  const notice = diff.truncated
    ? html`<div class="flash flash-warn mb-3" role="status">This diff is large: ${hidden > 0 ? `${hidden} ${hidden === 1 ? 'file is' : 'files are'} not listed and ` : ''}some changes are not shown.${links.raw ? html` <a href="${links.raw}">Raw diff</a>.` : ' Clone the repository to see all of it.'}</div>`
    : null;
  const sections = prepared.files.map((built, index) => {
    const { file } = built;
    const href = links.view(file);
    return html`<section class="Box mb-3" id="diff-${index}" aria-label="${fileName(file)}">
      <div class="Box-header d-flex flex-items-center flex-wrap kiln-gap py-2">
        <span class="Label ${STATUS_LABEL[file.status].css}">${STATUS_LABEL[file.status].text}</span>
        <h3 class="f6 text-mono text-normal flex-auto kiln-break">${fileName(file)}</h3>
        ${file.binary ? null : counts(file)}
        ${href ? html`<a class="btn btn-sm" href="${href}">View file</a>` : null}
      </div>
      ${fileBody(built, links, after)}
    </section>`;
  });
  return html`${notice}${sections}`;
}

/**
 * The `file` values of a "load diff" link: the file's new path, and its old one too when it was
 * renamed or copied, so git still pairs the two sides.
 */
export function diffFilePaths(file: DiffFile): string[] {
  return [...new Set([file.newPath, file.oldPath].filter((path): path is string => !!path))];
}

/** `base` with `file=` for each path of `file`: the address of its "load diff" page. */
export function loadDiffHref(base: string, file: DiffFile): string {
  const query = diffFilePaths(file)
    .map((path) => `file=${encodeURIComponent(path)}`)
    .join('&');
  return `${base}${base.includes('?') ? '&' : '?'}${query}`;
}

/**
 * The files a "load diff" link asks for (`?file=`, the new path and, for a rename, the old):
 * the diff is then narrowed to them. Undefined when the page shows every file.
 */
export function loadedFiles(query: unknown): string[] | undefined {
  const files = fieldValues(query, 'file', 4096).filter((path) => path !== '');
  return files.length === 0 ? undefined : files.slice(0, 2);
}
