import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';

/** The pages of the admin area, in the order the navigation lists them. */
const ADMIN_PAGES = [
  { key: 'overview', label: 'Overview', href: '/admin', glyph: 'home' },
  { key: 'users', label: 'Users', href: '/admin/users', glyph: 'person' },
  { key: 'repos', label: 'Repositories', href: '/admin/repos', glyph: 'repo' },
  { key: 'runners', label: 'Runners', href: '/admin/runners', glyph: 'server' },
  { key: 'housekeeping', label: 'Housekeeping', href: '/admin/housekeeping', glyph: 'tools' },
  { key: 'hooks', label: 'System webhooks', href: '/admin/hooks', glyph: 'webhook' },
  { key: 'federation', label: 'Federation', href: '/admin/federation', glyph: 'globe' },
] as const;

export type AdminPage = (typeof ADMIN_PAGES)[number]['key'];

/**
 * Every admin page inside one frame: the admin navigation (a side menu on wide screens, a row
 * that scrolls on its own on narrow ones) and the page's content beside it.
 */
export function adminFrame(current: AdminPage, content: Html): Html {
  const items = ADMIN_PAGES.map(
    (page) =>
      html`<a class="menu-item" href="${page.href}" ${page.key === current ? html`aria-current="page"` : null}>${icon(page.glyph)} ${page.label}</a>`,
  );
  return html`<div class="d-md-flex kiln-gap-lg">
    <nav class="menu kiln-admin-nav mb-3" aria-label="Administration">
      <span class="menu-heading">Site administration</span>
      ${items}
    </nav>
    <div class="flex-auto min-width-0">${content}</div>
  </div>`;
}

/**
 * A table of the admin pages: it scrolls sideways inside its own box when the screen is
 * narrower than its columns, so the page itself never does.
 */
export function adminTable(headings: readonly string[], rows: readonly Html[]): Html {
  return html`<div class="kiln-table-scroll mb-3"><table class="width-full kiln-table">
    <thead><tr>${headings.map((name) => html`<th scope="col" class="p-2 text-left f6 color-fg-muted">${name}</th>`)}</tr></thead>
    <tbody>${rows}</tbody>
  </table></div>`;
}
