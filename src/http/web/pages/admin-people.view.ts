import type {
  AdminPersonRow,
  AdminRepoRow,
  InstanceCounts,
} from '../../../domain/admin/site-admin.service.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { accountUrl, repoUrl } from '../paths.ts';
import { adminTable } from '../views/admin-frame.ts';
import { formatBytes } from '../views/blob.ts';
import { shortDate } from '../views/time.ts';

const CELL = 'p-2 border-top';

/** The search box of a list page, keeping its query. */
export function searchForm(action: string, label: string, query: string): Html {
  return html`<form method="get" action="${action}" class="d-flex kiln-gap mb-3" role="search">
    <label class="sr-only" for="admin-search">${label}</label>
    <input class="form-control flex-auto" id="admin-search" type="search" name="q" value="${query}" placeholder="${label}">
    <button class="btn" type="submit">Search</button>
  </form>`;
}

function uptimeText(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  return `${minutes} min`;
}

/** `/admin`: what the instance holds, which version runs and for how long. */
export function overviewPage(
  counts: InstanceCounts,
  facts: { version: string; uptimeSeconds: number },
): Html {
  const stat = (label: string, value: number, href: string) =>
    html`<a class="Box p-3 d-block no-underline kiln-stat" href="${href}"><span class="d-block f2 text-bold color-fg-default">${value}</span><span class="color-fg-muted">${label}</span></a>`;
  return html`<h1 class="h2 mb-3">Overview</h1>
    <div class="kiln-stats mb-4">
      ${stat('Users', counts.people, '/admin/users')}
      ${stat('Organisations', counts.orgs, '/explore')}
      ${stat('Repositories', counts.repos, '/admin/repos')}
      ${stat('Runners', counts.runners, '/admin/runners')}
    </div>
    <dl class="kiln-facts">
      <dt class="text-bold">Version</dt><dd class="mb-2">Kiln ${facts.version}</dd>
      <dt class="text-bold">Uptime</dt><dd class="mb-2">${uptimeText(facts.uptimeSeconds)}</dd>
      <dt class="text-bold">Documentation</dt><dd class="mb-2"><a href="/api/swagger">API</a> · <a href="/metrics">Metrics</a> · <a href="/healthz">Health</a></dd>
    </dl>`;
}

function toggle(context: PageContext, action: string, label: string, danger = false): Html {
  return html`<form method="post" action="${action}" class="d-inline">
    <input type="hidden" name="_csrf" value="${context.csrf}">
    <button class="btn btn-sm ${danger ? 'btn-danger' : ''}" type="submit">${label}</button>
  </form>`;
}

function personRow(context: PageContext, row: AdminPersonRow): Html {
  const { account, disabledAt, admin } = row;
  const base = `/admin/users/${encodeURIComponent(account.handle)}`;
  const self = context.user?.id === account.id;
  const adminCell =
    admin === 'listed'
      ? html`<span class="Label" title="Listed in SERVICE_ADMIN_HANDLES">admin (configuration)</span>`
      : admin === 'stored'
        ? html`<span class="Label Label--accent">admin</span> ${self ? null : toggle(context, `${base}/revoke-admin`, 'Revoke admin')}`
        : toggle(context, `${base}/make-admin`, 'Make admin');
  const state = disabledAt
    ? html`<span class="Label Label--danger">disabled</span> ${toggle(context, `${base}/enable`, 'Enable')}`
    : html`<span class="Label Label--success">active</span> ${self ? null : toggle(context, `${base}/disable`, 'Disable', true)}`;
  return html`<tr>
    <td class="${CELL}"><a class="text-bold" href="${accountUrl(account.handle)}">${account.handle}</a>${account.fullName ? html`<span class="d-block f6 color-fg-muted">${account.fullName}</span>` : null}</td>
    <td class="${CELL}">${account.email ?? ''}</td>
    <td class="${CELL}">${shortDate(account.createdAt)}</td>
    <td class="${CELL} text-nowrap">${state}</td>
    <td class="${CELL} text-nowrap">${adminCell}</td>
  </tr>`;
}

/** `/admin/users`: people with their state, and the forms that disable them or make admins. */
export function usersPage(
  context: PageContext,
  list: { items: readonly AdminPersonRow[]; total: number; query: string },
  pager: Html | null,
): Html {
  const rows = list.items.map((row) => personRow(context, row));
  return html`<h1 class="h2 mb-2">Users <span class="kiln-counter">${list.total}</span></h1>
    <p class="color-fg-muted mb-3">A disabled person cannot sign in, and their sessions and tokens stop working at once. People listed in <code>SERVICE_ADMIN_HANDLES</code> are administrators whatever this page says.</p>
    ${searchForm('/admin/users', 'Search by name or email', list.query)}
    ${rows.length === 0 ? html`<p class="color-fg-muted">No one matches.</p>` : adminTable(['Name', 'Email', 'Joined', 'State', 'Administrator'], rows)}
    ${pager}`;
}

function repoRow(row: AdminRepoRow): Html {
  const { repo, sizeBytes } = row;
  return html`<tr>
    <td class="${CELL}"><a class="text-bold" href="${repoUrl(repo)}">${repo.name}</a></td>
    <td class="${CELL}"><a href="${accountUrl(repo.owner.handle)}">${repo.owner.handle}</a></td>
    <td class="${CELL}">${repo.private ? html`${icon('lock')} private` : 'public'}</td>
    <td class="${CELL} text-nowrap">${sizeBytes === undefined ? '–' : formatBytes(sizeBytes)}</td>
    <td class="${CELL}">${shortDate(repo.updatedAt)}</td>
    <td class="${CELL}"><a class="btn btn-sm btn-danger" href="${repoUrl(repo)}/settings#danger">Delete…</a></td>
  </tr>`;
}

/** `/admin/repos`: every repository, private ones included, with its size on disk. */
export function reposPage(
  list: { items: readonly AdminRepoRow[]; total: number; query: string },
  pager: Html | null,
): Html {
  return html`<h1 class="h2 mb-2">Repositories <span class="kiln-counter">${list.total}</span></h1>
    <p class="color-fg-muted mb-3">Deleting goes through the repository's own settings, where its name is typed to confirm.</p>
    ${searchForm('/admin/repos', 'Search by repository name', list.query)}
    ${list.items.length === 0 ? html`<p class="color-fg-muted">No repository matches.</p>` : adminTable(['Name', 'Owner', 'Visibility', 'Size', 'Updated', ''], list.items.map(repoRow))}
    ${pager}`;
}
