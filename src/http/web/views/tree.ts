import type { TreeItem } from '../../../domain/code/code.types.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import type { Commit } from '../../../git/read-objects.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { commitsUrl, commitUrl, srcUrl } from '../paths.ts';
import { fromEpochSeconds, relativeTime } from './time.ts';

const ICONS: Record<TreeItem['kind'], string> = {
  dir: 'file-directory-fill',
  file: 'file',
  symlink: 'file-symlink-file',
  submodule: 'file-submodule',
};

/** The first line of a commit message. */
export function commitTitle(message: string): string {
  return message.split('\n', 1)[0] ?? '';
}

/** The latest commit above a listing: author, title, short id, time, link to history. */
export function latestCommitBar(repo: Repository, ref: string, path: string, commit: Commit): Html {
  return html`<div class="Box-header d-flex flex-items-center flex-wrap kiln-gap">
    <span class="text-bold mr-2 d-none d-sm-inline">${commit.author.name}</span>
    <a class="flex-auto color-fg-default kiln-truncate" href="${commitUrl(repo, commit.sha)}">${commitTitle(commit.message)}</a>
    <a class="text-mono f6 color-fg-muted" href="${commitUrl(repo, commit.sha)}">${commit.sha.slice(0, 7)}</a>
    <span class="f6 color-fg-muted d-none d-sm-inline">${relativeTime(fromEpochSeconds(commit.committer.timestamp))}</span>
    <a class="btn btn-sm btn-invisible" href="${commitsUrl(repo, ref, path)}">${icon('history')} History</a>
  </div>`;
}

/** A directory as a table of entries, with a `..` row below the root. */
export function fileTable(
  repo: Repository,
  ref: string,
  path: string,
  items: readonly TreeItem[],
  header: Html,
): Html {
  const parent =
    path === ''
      ? null
      : html`<tr><td colspan="2"><a href="${srcUrl(repo, ref, path.split('/').slice(0, -1).join('/'))}" aria-label="Parent directory">..</a></td></tr>`;
  const rows = items.map((item) => {
    const name =
      item.kind === 'submodule'
        ? html`<span>${item.name} <span class="color-fg-muted f6">@ ${item.sha.slice(0, 7)}</span></span>`
        : html`<a href="${srcUrl(repo, ref, item.path)}">${item.name}</a>`;
    return html`<tr>
      <td class="kiln-icon-cell ${item.kind === 'dir' ? 'kiln-dir-icon' : 'color-fg-muted'}">${icon(ICONS[item.kind], { label: item.kind === 'dir' ? 'Directory' : item.kind === 'submodule' ? 'Submodule' : 'File' })}</td>
      <td class="kiln-break">${name}</td>
    </tr>`;
  });
  return html`<div class="Box mb-4">
    ${header}
    <table class="kiln-files width-full">
      <caption class="sr-only">Files in ${path || repo.name}</caption>
      <tbody>${parent}${rows}</tbody>
    </table>
  </div>`;
}

/** The README of a directory: markup rendered from markdown, or text shown preformatted. */
export function readmeBox(name: string, shown: { markup: Html } | { text: string }): Html {
  return html`<section class="Box mb-4" aria-labelledby="readme-title">
    <div class="Box-header d-flex flex-items-center">
      <h2 class="Box-title f5" id="readme-title">${icon('book')} ${name}</h2>
    </div>
    <div class="Box-body">${'markup' in shown ? html`<article class="markdown-body">${shown.markup}</article>` : html`<pre class="kiln-pre">${shown.text}</pre>`}</div>
  </section>`;
}
