import { isRecord } from '../../../lib/narrow.ts';
import { type Html, html } from '../html.ts';

/** Highest page number accepted from a query string; beyond it pages are empty anyway. */
const MAX_PAGE = 100_000;

/** `?page=` as a positive integer; anything else reads as page 1. */
export function pageOf(query: unknown): number {
  const value = isRecord(query) ? query.page : undefined;
  const page = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : 1;
  return Math.min(Math.max(page, 1), MAX_PAGE);
}

/** Previous / Next links; `href(n)` builds the URL of page n. */
export function pager(page: number, hasMore: boolean, href: (page: number) => string): Html | null {
  if (page <= 1 && !hasMore) return null;
  const previous =
    page > 1
      ? html`<a class="btn btn-sm" rel="prev" href="${href(page - 1)}">Previous</a>`
      : html`<span class="btn btn-sm disabled" aria-disabled="true">Previous</span>`;
  const next = hasMore
    ? html`<a class="btn btn-sm" rel="next" href="${href(page + 1)}">Next</a>`
    : html`<span class="btn btn-sm disabled" aria-disabled="true">Next</span>`;
  return html`<nav class="d-flex flex-justify-center flex-items-center mt-3 kiln-pager" aria-label="Pagination">
    ${previous}<span class="mx-3 color-fg-muted f6">Page ${page}</span>${next}
  </nav>`;
}

/** `base` with `?page=n` (or without a query for page 1). */
export function withPage(base: string, page: number): string {
  return page <= 1 ? base : `${base}?page=${page}`;
}
