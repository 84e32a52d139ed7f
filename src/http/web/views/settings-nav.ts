import { type Html, html } from '../html.ts';

const ITEMS: ReadonlyArray<[string, string]> = [
  ['/settings', 'Profile'],
  ['/settings/password', 'Password'],
  ['/settings/sessions', 'Sessions'],
  ['/settings/tokens', 'Access tokens'],
  ['/settings/keys', 'SSH keys'],
  ['/settings/federation', 'Fediverse'],
];

/** The personal settings frame: a side menu and the section's content. */
export function settingsFrame(current: string, content: Html): Html {
  const items = ITEMS.map(
    ([href, label]) =>
      html`<a class="SideNav-item" href="${href}" ${href === current ? html`aria-current="page"` : null}>${label}</a>`,
  );
  return html`<div class="d-md-flex kiln-gap-lg">
    <nav class="SideNav border rounded-2 kiln-sidenav mb-4" aria-label="Settings">${items}</nav>
    <div class="flex-auto min-width-0">${content}</div>
  </div>`;
}
