import type { Repository } from '../../../domain/repos/repo.types.ts';
import { type Html, html, trusted } from '../html.ts';
import { icon } from '../icons.ts';
import { commitsUrl, rawUrl } from '../paths.ts';
import type { CodeView } from '../render/content-renderer.ts';

/** 1536 → "1.5 KB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} Bytes`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** Lines of a file with anchors (`#L12`), markup already safe (highlighted or escaped). */
export function codeTable(lines: readonly string[]): Html {
  const rows = lines.map(
    (line, index) =>
      html`<tr><td id="L${index + 1}" class="kiln-ln"><a href="#L${index + 1}">${index + 1}</a></td><td class="kiln-lc hljs">${trusted(line)}</td></tr>`,
  );
  return html`<div class="kiln-code"><table><tbody>${rows}</tbody></table></div>`;
}

/** What a file page shows of a file: its lines, or why they are not shown. */
export type FileShown =
  | { readonly kind: 'code'; readonly view: CodeView }
  | { readonly kind: 'symlink'; readonly target: string }
  | { readonly kind: 'binary' }
  | { readonly kind: 'too-large' };

/** A file's header (size, raw and history links) and its body or a notice. */
export function blobBox(
  repo: Repository,
  ref: string,
  file: {
    readonly path: string;
    readonly mode: string;
    readonly sizeBytes: number;
    /** Stored with Git LFS: the size and content shown are the object's. */
    readonly lfs?: boolean | undefined;
  },
  shown: FileShown,
): Html {
  const raw = rawUrl(repo, ref, file.path);
  const meta =
    shown.kind === 'code'
      ? html`${shown.view.lineCount} ${shown.view.lineCount === 1 ? 'line' : 'lines'} · ${formatBytes(file.sizeBytes)}`
      : html`${formatBytes(file.sizeBytes)}`;
  let body: Html;
  if (shown.kind === 'too-large') {
    body = html`<div class="Box-body text-center py-6"><p>${icon('file')} This file is too big to show (${formatBytes(file.sizeBytes)}).</p><a class="btn" href="${raw}">View raw</a></div>`;
  } else if (shown.kind === 'binary') {
    body = html`<div class="Box-body text-center py-6"><p>${icon('file-binary')} Binary file not shown.</p><a class="btn" href="${raw}">Download</a></div>`;
  } else if (shown.kind === 'symlink') {
    body = html`<div class="Box-body">Symbolic link to <code>${shown.target}</code></div>`;
  } else {
    const { notice, markup } = shown.view;
    body = html`${notice ? html`<div class="Box-body py-2">${notice}</div>` : null}${markup}`;
  }
  return html`<section class="Box mb-4" aria-label="File contents">
    <div class="Box-header d-flex flex-items-center flex-wrap kiln-gap">
      <span class="flex-auto f6 color-fg-muted">${meta}${file.mode === '100755' ? ' · executable' : ''}${file.lfs ? ' · Stored with Git LFS' : ''}</span>
      <div class="BtnGroup">
        <a class="btn btn-sm BtnGroup-item" href="${raw}">Raw</a>
        <a class="btn btn-sm BtnGroup-item" href="${commitsUrl(repo, ref, file.path)}">History</a>
      </div>
    </div>
    ${body}
  </section>`;
}
