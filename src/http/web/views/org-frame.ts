import type { OrgView } from '../../../domain/orgs/org.service.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { accountUrl } from '../paths.ts';

/** Which organisation page is shown. */
export type OrgTab = 'repositories' | 'members' | 'teams' | 'settings';

/** `/org/{org}/…`: the organisation's own pages (members, settings), as Gitea names them. */
export function orgUrl(handle: string, tail: 'members' | 'teams' | 'settings'): string {
  return `/org/${encodeURIComponent(handle)}/${tail}`;
}

function tab(name: string, href: string, glyph: string, current: boolean): Html {
  return html`<a class="UnderlineNav-item" href="${href}" ${current ? html`aria-current="page"` : null}>${icon(glyph)}<span>${name}</span></a>`;
}

/**
 * The header of an organisation's members and settings pages: its name, visibility, and tabs
 * for what the viewer may open (members and teams for members, settings for owners).
 */
export function orgFrame(view: OrgView, current: OrgTab, content: Html): Html {
  const { org, settings } = view;
  return html`<div class="mb-4">
    <h1 class="h3 text-normal mb-2 kiln-break">
      <span class="color-fg-muted">${icon('organization')}</span>
      <a href="${accountUrl(org.handle)}">${org.handle}</a>
      ${settings.visibility === 'private' ? html`<span class="Label ml-1">Private</span>` : null}
    </h1>
    <nav class="UnderlineNav" aria-label="Organisation">
      <div class="UnderlineNav-body">
        ${tab('Repositories', accountUrl(org.handle), 'repo', current === 'repositories')}
        ${view.role !== undefined || view.canAdminister ? tab('Members', orgUrl(org.handle, 'members'), 'people', current === 'members') : null}
        ${view.role !== undefined || view.canAdminister ? tab('Teams', orgUrl(org.handle, 'teams'), 'organization', current === 'teams') : null}
        ${view.canAdminister ? tab('Settings', orgUrl(org.handle, 'settings'), 'gear', current === 'settings') : null}
      </div>
    </nav>
  </div>
  ${content}`;
}
