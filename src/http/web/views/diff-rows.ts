import type { Diff, DiffFile } from '../../../git/diff.ts';
import { pureCache } from '../../../lib/pure-caches.ts';
import { SizedLru } from '../../../lib/sized-lru.ts';
import { type Html, html } from '../html.ts';
import { cutMark, cutText, pacer, RenderBudget } from './render-budget.ts';

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
export type BuiltRow = {
  readonly markup: Html;
  /** The line's mark (` `, `+`, `-`, `\\`), or `@` for a hunk's header. */
  readonly mark: string;
  readonly oldLine: number;
  readonly newLine: number;
};

/** A file's rows as built within the limits; `cut` says some were left out. */
export type BuiltFile = {
  readonly file: DiffFile;
  readonly rows: readonly BuiltRow[];
  readonly cut: boolean;
};

/**
 * A diff whose rows are built and bounded (`prepareDiff`), ready for `diffFiles` to lay out with
 * whatever rows a page hangs after lines.
 */
export type PreparedDiff = { readonly diff: Diff; readonly files: readonly BuiltFile[] };

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
const builtRows = pureCache(
  { name: 'diff_rows', key: "a kept parse of git's diff", bound: '16 MiB of rows' },
  new SizedLru<
    readonly DiffFile[],
    { readonly limits: DiffRenderLimits; readonly files: BuiltFile[] }
  >(16 * 1024 * 1024),
);

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
  // keeps one per answer it keeps): built once, they are laid out again for free. Their size
  // counts three times: `diffFiles` keeps their bytes, and `keptDiffFiles` a page of them, beside
  // them while they are kept.
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
  if (shared) builtRows.set(diff.files, { limits, files }, 3 * page.used + 1024);
  return { diff, files };
}
