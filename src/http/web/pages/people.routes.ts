import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { OrgView } from '../../../domain/orgs/org.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { Account } from '../../../domain/users/user.types.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { Pages } from '../page.ts';
import { OwnerParams } from '../page-params.ts';
import { accountUrl } from '../paths.ts';
import { orgFrame, orgUrl } from '../views/org-frame.ts';
import { pageOf, pager, withPage } from '../views/paging.ts';
import { repoList } from '../views/repo-list.ts';
import { shortDate } from '../views/time.ts';

/** What the pages of people and organisations use. */
export type PeopleRouteDeps = {
  readonly services: Pick<DomainServices, 'federation' | 'orgs' | 'repos' | 'users'>;
};

const PER_PAGE = 20;

/**
 * An organisation's members, for whoever may see the organisation (a private one is missing to
 * outsiders before this is reached); the members page links from here for its members.
 */
async function members(deps: PeopleRouteDeps, view: OrgView | undefined): Promise<Html | null> {
  if (!view) return null;
  const org = view.org;
  const rows = await deps.services.orgs.listMembers(org);
  const accounts = await deps.services.users.findManyByIds(rows.map((row) => row.userId));
  const items = rows.flatMap((row) => {
    const person = accounts.get(row.userId);
    return person
      ? [
          html`<li class="d-flex flex-items-center py-1"><img class="avatar mr-2" src="/assets/avatar.svg" width="20" height="20" alt=""><a class="flex-auto" href="${accountUrl(person.handle)}">${person.handle}</a>${row.role === 'owner' ? html`<span class="Label">owner</span>` : null}</li>`,
        ]
      : [];
  });
  return html`<section class="mt-4" aria-labelledby="people-heading">
    <h2 class="f5 mb-2" id="people-heading">People</h2>
    <ul class="list-style-none">${items}</ul>
    ${view.role !== undefined || view.canAdminister ? html`<p class="f6 mt-1"><a href="${orgUrl(org.handle, 'members')}">${view.canAdminister ? 'Manage members' : 'All members'}</a>${view.canAdminister ? html` · <a href="${orgUrl(org.handle, 'settings')}">Settings</a>` : null}</p>` : null}
  </section>`;
}

/** `@handle@host` and the actor URL, for following from Mastodon or another forge. */
function fediverseCard(deps: PeopleRouteDeps, account: Account): Html | null {
  const federation = deps.services.federation;
  if (!federation) return null;
  const actor = federation.actors.ofAccount(account);
  return html`<div class="f6 color-fg-muted mt-2 kiln-break">
    <p class="mb-1">${icon('globe')} Follow from the fediverse:</p>
    <p class="mb-1"><code>@${account.handle}@${federation.urls.host}</code></p>
    <p><code>${actor.id}</code></p>
  </div>`;
}

/** A website link: only http(s) addresses are ever stored (OrgService), shown as given. */
function websiteLine(view: OrgView | undefined): Html | null {
  const website = view?.settings.website;
  if (!website) return null;
  return html`<p class="f6 mt-2 kiln-break">${icon('link')} <a href="${website}" rel="nofollow noopener">${website}</a></p>`;
}

function profileCard(account: Account, view: OrgView | undefined): Html {
  return html`<img class="avatar kiln-avatar-lg mb-3" src="/assets/avatar.svg" width="200" height="200" alt="">
    <h1 class="kiln-break">
      ${account.fullName ? html`<span class="d-block f2 lh-condensed">${account.fullName}</span>` : null}
      <span class="d-block f3 text-normal color-fg-muted">${account.handle}</span>
    </h1>
    ${account.kind === 'org' ? html`<span class="Label mt-1">${icon('organization')} Organisation</span>` : null}
    ${view?.settings.visibility === 'private' ? html`<span class="Label mt-1">${icon('lock')} Private</span>` : null}
    ${account.description ? html`<p class="mt-3 kiln-break">${account.description}</p>` : null}
    ${websiteLine(view)}
    <p class="f6 color-fg-muted mt-2">${icon('clock')} Joined ${shortDate(account.createdAt)}</p>`;
}

/**
 * A person's or organisation's page (`/{owner}`): profile without email, repositories the viewer
 * may see, an organisation's members.
 */
export function registerPeopleRoutes(
  parent: FastifyInstance,
  deps: PeopleRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  server.get('/:owner', { schema: { params: OwnerParams } }, async (request, reply) => {
    const { owner } = request.params;
    const account = await deps.services.users.findAccount(owner);
    if (!account) throw new NotFound('account not found');
    const page = pageOf(request.query);
    const offset = (page - 1) * PER_PAGE;
    const viewer = viewerUser(request.viewer);
    // A private organisation is as missing as an unknown name to those outside it.
    const view =
      account.kind === 'org' ? await deps.services.orgs.viewOf(viewer, account) : undefined;
    const [{ items, total }, people] = await Promise.all([
      deps.services.repos.listVisible(viewer, { limit: PER_PAGE, offset }, { ownerId: account.id }),
      members(deps, view),
    ]);
    const mine = viewer?.id === account.id || view?.canAdminister === true;
    const body = html`<div class="d-md-flex kiln-gap-lg">
        <aside class="kiln-profile mb-4">${profileCard(account, view)}${fediverseCard(deps, account)}${people}</aside>
        <section class="flex-auto min-width-0" aria-labelledby="repos-heading">
          <div class="d-flex flex-items-center border-bottom pb-2 mb-3">
            <h2 class="h3 flex-auto" id="repos-heading">${icon('repo')} Repositories <span class="kiln-counter">${total}</span></h2>
            ${mine ? html`<a class="btn btn-sm btn-primary" href="/new?owner=${encodeURIComponent(account.handle)}">New</a>` : null}
          </div>
          ${repoList(items, { showOwner: false, empty: page > 1 ? 'No more repositories.' : `${account.handle} has no repositories you can see.` })}
          ${pager(page, offset + items.length < total, (n) => withPage(accountUrl(account.handle), n))}
        </section>
      </div>`;
    return pages.send(request, reply, {
      title: account.fullName ? `${account.handle} (${account.fullName})` : account.handle,
      // An organisation's main page carries the same tabs as its members, teams and settings.
      body: view ? orgFrame(view, 'repositories', body) : body,
    });
  });
}
