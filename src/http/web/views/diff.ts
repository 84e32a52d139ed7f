import type { Diff, DiffFile } from '../../../git/diff.ts';
import { fieldValues } from '../forms.ts';
import { encoded, type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { BuiltFile, BuiltRow, DiffLineHooks, PreparedDiff } from './diff-rows.ts';

export {
  DIFF_RENDER_LIMITS,
  type DiffLineHooks,
  type DiffRenderLimits,
  ONE_FILE_DIFF_LIMITS,
  type PreparedDiff,
  prepareDiff,
} from './diff-rows.ts';

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

/** Where a diff's readers go for what a page does not show. */
export type DiffLinks = {
  /** The file at the new side, when it has one. */
  readonly view: (file: DiffFile) => string | undefined;
  /** A page showing only this file; absent on that page itself. */
  readonly load?: (file: DiffFile) => string;
  /** The whole diff as plain text (`.diff`), when the page has one. */
  readonly raw?: string;
};

/** Review comments after a line: added or context lines on the new side, removed on the old. */
function afterRows(row: BuiltRow, file: DiffFile, after: DiffLineHooks['after']): Html[] {
  if (!after || row.mark === '@' || row.mark === '\\') return [];
  if (row.mark === '+') return [after(file, 'RIGHT', row.newLine) ?? html``];
  if (row.mark === '-') return [after(file, 'LEFT', row.oldLine) ?? html``];
  return [after(file, 'RIGHT', row.newLine) ?? html``, after(file, 'LEFT', row.oldLine) ?? html``];
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
  return html`<div class="kiln-code kiln-diff"><table><tbody>${tableRows(built, after)}</tbody></table></div>
    ${cut || file.truncated ? cutNote(file, links, true) : null}`;
}

/**
 * A built file's rows kept as UTF-8 while the built file is kept (`prepareDiff` keeps it with
 * git's answer): a view of a commit seen before copies these bytes into its answer instead of
 * joining and encoding up to a megabyte of rows again on the request thread.
 */
const encodedRows = new WeakMap<BuiltFile, Html>();

function tableRows(built: BuiltFile, after: DiffLineHooks['after']): Html {
  const { file, rows } = built;
  // Rows hung after lines (review comments) differ from view to view: built each time.
  if (after) return html`${rows.map((row) => [row.markup, ...afterRows(row, file, after)])}`;
  let kept = encodedRows.get(built);
  if (kept === undefined) {
    kept = encoded(html`${rows.map((row) => row.markup)}`);
    encodedRows.set(built, kept);
  }
  return kept;
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

/** Laid-out files of kept diffs, encoded, by the links they were laid out with. */
const keptLayouts = new WeakMap<readonly BuiltFile[], { key: string; markup: Html }>();

/**
 * The file list (`diffFileList`) and `diffFiles` without review rows, kept encoded while the
 * prepared diff's rows are kept (`prepareDiff` keeps them with git's answer): every view of a
 * commit seen before sends the same bytes instead of laying out, escaping and encoding its
 * hundred files and their list again on the request thread. `key` names the links (the same key
 * must mean the same links).
 */
export function keptDiffFiles(prepared: PreparedDiff, links: DiffLinks, key: string): Html {
  const kept = keptLayouts.get(prepared.files);
  if (kept?.key === key) return kept.markup;
  const markup = encoded(html`${diffFileList(prepared.diff)}${diffFiles(prepared, links)}`);
  keptLayouts.set(prepared.files, { key, markup });
  return markup;
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
