import type { FastifyInstance } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { Pages } from '../page.ts';
import { repoUrl } from '../paths.ts';
import { pageOf, pager, withPage } from '../views/paging.ts';
import { repoList } from '../views/repo-list.ts';
import { dashboardPulls } from './dashboard-pulls.ts';

/** What the start page and the dashboard use. */
export type HomeRouteDeps = {
  readonly services: Pick<DomainServices, 'repos' | 'pulls'>;
};

const EXPLORE_PER_PAGE = 20;

function welcome(repos: Html): Html {
  return html`<section class="kiln-hero text-center py-6 mb-4" aria-labelledby="hero-title">
      <h1 class="f00-light mb-2" id="hero-title">${icon('flame', { size: 48 })} Kiln</h1>
      <p class="f3 color-fg-muted mx-auto kiln-measure">A self-hosted git forge: push and clone over HTTP, review pull requests line by line, cut releases, and point the tools you already use at its Gitea-compatible API.</p>
      <p class="mt-4"><a class="btn btn-primary btn-large mr-2" href="/signup">Sign up</a><a class="btn btn-large" href="/explore">Explore repositories</a></p>
    </section>
    <section aria-labelledby="public-heading" class="kiln-medium mx-auto">
      <h2 class="h3 mb-2" id="public-heading">Public repositories</h2>
      ${repos}
      <p class="mt-3"><a href="/explore">See all repositories →</a></p>
    </section>`;
}

/**
 * The greeting of someone who has nothing here yet (just signed up, or no repository of their
 * own or their organisations'): the three steps to a first push instead of a "welcome back".
 */
function firstSteps(user: User): Html {
  return html`<section class="Box p-3 mb-4" aria-labelledby="first-steps">
      <h2 class="h3 mb-2" id="first-steps">Welcome to Kiln, ${user.fullName || user.handle}</h2>
      <p class="color-fg-muted mb-2">Three steps to your first push:</p>
      <ol class="ml-4">
        <li class="py-1"><a href="/new">Create a repository</a>.</li>
        <li class="py-1"><a href="/settings/tokens">Add a personal access token</a>; git uses it as your password.</li>
        <li class="py-1">Push: add the clone URL shown on the repository's page as a remote, then <code>git push -u origin main</code>.</li>
      </ol>
    </section>`;
}

async function dashboard(deps: HomeRouteDeps, user: User): Promise<Html> {
  const [{ items, total }, pulls] = await Promise.all([
    deps.services.repos.listForMember(user, { limit: 20, offset: 0 }),
    dashboardPulls(deps, user),
  ]);
  const links = items.map(
    ({ repo }) =>
      html`<li class="py-1 kiln-break"><a href="${repoUrl(repo)}">${icon(repo.private ? 'lock' : 'repo')} ${repo.owner.handle}/${repo.name}</a></li>`,
  );
  return html`<h1 class="sr-only">Dashboard</h1>
    <div class="d-md-flex kiln-gap-lg">
      <aside class="kiln-sidebar mb-4" aria-labelledby="your-repos">
        <div class="d-flex flex-items-center mb-2">
          <h2 class="f5 flex-auto" id="your-repos">Your repositories</h2>
          <a class="btn btn-sm btn-primary" href="/new">${icon('repo')} New</a>
        </div>
        ${links.length > 0 ? html`<ul class="list-style-none">${links}</ul>` : html`<p class="color-fg-muted f6">You have no repositories yet. <a href="/new">Create one</a>.</p>`}
        ${total > items.length ? html`<p class="f6 mt-2"><a href="/${encodeURIComponent(user.handle)}">Show all ${total}</a></p>` : null}
      </aside>
      <div class="flex-auto min-width-0">
        ${total === 0 ? firstSteps(user) : html`<h2 class="h3 mb-3">Welcome back, ${user.fullName || user.handle}</h2>`}
        ${pulls}
        <p class="color-fg-muted">Create a <a href="/settings/tokens">personal access token</a> to use the API and git over HTTP.</p>
      </div>
    </div>`;
}

/** The start page (introduction or dashboard) and `/explore`. */
export function registerHomeRoutes(
  server: FastifyInstance,
  deps: HomeRouteDeps,
  pages: Pages,
): void {
  server.get('/', async (request, reply) => {
    const user = viewerUser(request.viewer);
    if (user) {
      return pages.send(request, reply, { title: 'Dashboard', body: await dashboard(deps, user) });
    }
    const { items } = await deps.services.repos.listVisible(undefined, { limit: 10, offset: 0 });
    return pages.send(request, reply, {
      title: 'Welcome',
      body: welcome(repoList(items, { empty: 'No public repositories yet.' })),
    });
  });

  server.get('/explore', async (request, reply) => {
    const page = pageOf(request.query);
    const offset = (page - 1) * EXPLORE_PER_PAGE;
    const { items, total } = await deps.services.repos.listVisible(viewerUser(request.viewer), {
      limit: EXPLORE_PER_PAGE,
      offset,
    });
    return pages.send(request, reply, {
      title: 'Explore',
      body: html`<div class="kiln-medium">
        <h1 class="h2 mb-1">Explore repositories</h1>
        <p class="color-fg-muted mb-3">${total} ${total === 1 ? 'repository' : 'repositories'} you can see.</p>
        ${repoList(items, { empty: page > 1 ? 'No more repositories.' : 'No repositories yet.' })}
        ${pager(page, offset + items.length < total, (n) => withPage('/explore', n))}
      </div>`,
    });
  });
}
