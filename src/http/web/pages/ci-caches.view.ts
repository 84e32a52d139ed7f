import type { CacheEntry } from '../../../domain/ci/cache/cache.types.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { csrfField, when } from './admin-runner-tables.view.ts';

const CELL = 'p-2 border-top';

/** Bytes as a person reads them (`1.5 MB`). */
function sizeText(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/**
 * The repository's cache entries (`actions/cache`), most recently used first, each with its
 * ref, size, last use and a delete button; `shown` of `total`.
 */
export function cachesBox(
  context: PageContext,
  data: { readonly path: string; readonly caches: readonly CacheEntry[]; readonly total: number },
): Html {
  const rows = data.caches.map(
    (entry) => html`<tr>
      <td class="${CELL}"><code>${entry.key}</code></td>
      <td class="${CELL}"><code>${entry.scope}</code></td>
      <td class="${CELL}">${sizeText(entry.size)}</td>
      <td class="${CELL}">${when(new Date(entry.lastAccessedAt))}</td>
      <td class="${CELL}"><form method="post" action="${data.path}/caches/${String(entry.id)}/delete">${csrfField(context)}<button class="btn btn-sm btn-danger" type="submit" aria-label="Delete cache ${entry.key}">Delete</button></form></td>
    </tr>`,
  );
  const more =
    data.total > data.caches.length
      ? html`<div class="Box-body f6 color-fg-muted">${String(data.caches.length)} of ${String(data.total)} shown; the API lists them all.</div>`
      : null;
  return html`<div class="Box mb-4">
    <div class="Box-header"><h2 class="Box-title">Caches</h2></div>
    <div class="Box-body f6 color-fg-muted">What workflows saved with <code>actions/cache</code>, by the ref that saved it. The least recently used go first when the repository reaches its limit.</div>
    ${data.caches.length === 0 ? html`<div class="Box-body">No caches.</div>` : html`<table class="width-full"><tbody>${rows}</tbody></table>`}
    ${more}
  </div>`;
}
