import type { VisibleRepo } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { repoUrl } from '../paths.ts';
import { relativeTime } from './time.ts';

/** A list of repositories as rows: name, visibility, description, last change. */
export function repoList(
  items: readonly VisibleRepo[],
  options: { showOwner?: boolean; empty?: string } = {},
): Html {
  if (items.length === 0) {
    return html`<p class="color-fg-muted py-3">${options.empty ?? 'No repositories yet.'}</p>`;
  }
  const rows = items.map(({ repo }) => {
    const label = options.showOwner === false ? repo.name : `${repo.owner.handle}/${repo.name}`;
    return html`<li class="Box-row">
      <div class="d-flex flex-items-center flex-wrap">
        <span class="color-fg-muted mr-2">${icon(repo.parentId ? 'repo-forked' : 'repo')}</span>
        <a class="f4 text-bold kiln-break" href="${repoUrl(repo)}">${label}</a>
        ${repo.private ? html`<span class="Label Label--attention ml-2">Private</span>` : html`<span class="Label ml-2">Public</span>`}
      </div>
      ${repo.description ? html`<p class="color-fg-muted mt-1 mb-0 kiln-break">${repo.description}</p>` : null}
      <p class="f6 color-fg-muted mt-1 mb-0">Updated ${relativeTime(repo.updatedAt)}</p>
    </li>`;
  });
  return html`<ul class="Box kiln-list">${rows}</ul>`;
}
