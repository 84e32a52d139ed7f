import type { ResolvedRef } from '../../../domain/code/code.types.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import type { RefListing } from '../../../git/refs.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { repoUrl, srcUrl } from '../paths.ts';

const MAX_LISTED_REFS = 100;

/**
 * The branch/tag switcher: a `<details>` menu of plain links, so it works without JavaScript.
 * `target(ref)` builds the URL each entry leads to (the same path on another ref).
 */
export function refSwitcher(
  repo: Repository,
  current: ResolvedRef,
  refs: RefListing,
  target: (ref: string) => string,
): Html {
  const item = (name: string) =>
    html`<a class="dropdown-item kiln-break" role="menuitem" href="${target(name)}" ${name === current.name ? html`aria-current="true"` : null}>${name === current.name ? icon('check') : null} ${name}</a>`;
  const branches = refs.branches.slice(0, MAX_LISTED_REFS).map((ref) => item(ref.name));
  const tags = refs.tags.slice(0, MAX_LISTED_REFS).map((ref) => item(ref.name));
  const label = current.kind === 'commit' ? current.name.slice(0, 7) : current.name;
  return html`<details class="details-reset details-overlay position-relative kiln-refs">
    <summary class="btn btn-sm" aria-haspopup="menu" title="Switch branches or tags">
      ${icon(current.kind === 'tag' ? 'tag' : 'git-branch')} <span class="kiln-ref-name">${label}</span> <span class="dropdown-caret"></span>
    </summary>
    <div class="dropdown-menu dropdown-menu-se kiln-menu-scroll" role="menu" aria-label="Branches and tags">
      <div class="dropdown-header">Branches</div>
      ${branches.length > 0 ? branches : html`<span class="dropdown-item color-fg-muted">No branches</span>`}
      ${refs.branches.length > MAX_LISTED_REFS ? html`<a class="dropdown-item" role="menuitem" href="${repoUrl(repo)}/branches">All branches…</a>` : null}
      <div class="dropdown-divider" role="separator"></div>
      <div class="dropdown-header">Tags</div>
      ${tags.length > 0 ? tags : html`<span class="dropdown-item color-fg-muted">No tags</span>`}
      ${refs.tags.length > MAX_LISTED_REFS ? html`<a class="dropdown-item" role="menuitem" href="${repoUrl(repo)}/tags">All tags…</a>` : null}
    </div>
  </details>`;
}

/** `name / dir / sub / file`, each part a link to its directory. */
export function breadcrumb(repo: Repository, ref: string, path: string): Html {
  const parts = path === '' ? [] : path.split('/');
  const links = parts.map((part, index) => {
    const last = index === parts.length - 1;
    const href = srcUrl(repo, ref, parts.slice(0, index + 1).join('/'));
    return html`<span class="color-fg-muted mx-1">/</span>${last ? html`<strong aria-current="page">${part}</strong>` : html`<a href="${href}">${part}</a>`}`;
  });
  return html`<nav aria-label="Breadcrumb" class="f4 kiln-break"><a class="text-bold" href="${srcUrl(repo, ref)}">${repo.name}</a>${links}</nav>`;
}

/**
 * The clone URL in a read-only field with a copy button (`data-copy`, see kiln.js); `kind`
 * names the transport when a menu offers more than one, so each field and button says which.
 */
export function cloneField(url: string, id: string, kind = ''): Html {
  const name = kind ? `${kind} clone URL` : 'Clone URL';
  const copy = kind ? `Copy ${kind} clone URL` : 'Copy clone URL';
  return html`<div class="input-group">
    <label for="${id}" class="sr-only">${name}</label>
    <input id="${id}" class="form-control input-monospace input-sm" type="text" value="${url}" readonly>
    <span class="input-group-button">
      <button class="btn btn-sm" type="button" data-copy="${url}" aria-label="${copy}">${icon('copy')}</button>
    </span>
  </div>`;
}

/** The green "Code" menu: the clone URLs (HTTPS, and SSH when on) and a source archive. */
export function cloneMenu(url: string, zipUrl: string, sshUrl = ''): Html {
  return html`<details class="details-reset details-overlay position-relative">
    <summary class="btn btn-sm btn-primary" aria-haspopup="true">${icon('code')} Code <span class="dropdown-caret"></span></summary>
    <div class="dropdown-menu dropdown-menu-sw p-3 kiln-clone-menu">
      <p class="text-bold mb-2">${icon('terminal')} Clone over HTTPS</p>
      ${cloneField(url, 'clone-url', 'HTTPS')}
      <p class="f6 color-fg-muted mt-2 mb-0">Use a <a href="/settings/tokens">personal access token</a> as the password.</p>
      ${
        sshUrl
          ? html`<p class="text-bold mt-3 mb-2">${icon('key')} Clone over SSH</p>
      ${cloneField(sshUrl, 'clone-url-ssh', 'SSH')}
      <p class="f6 color-fg-muted mt-2 mb-0">With a key added under <a href="/settings/keys">SSH keys</a>.</p>`
          : null
      }
      <div class="dropdown-divider" role="separator"></div>
      <a class="d-block pt-2" href="${zipUrl}">${icon('file-zip')} Download ZIP</a>
    </div>
  </details>`;
}
