import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app.ts';
import type { Release } from '../../../domain/releases/release.types.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { Pages } from '../page.ts';
import { accountUrl, encodeSegments, rawUrl, repoUrl, srcUrl } from '../paths.ts';
import type { ContentRenderer } from '../render/content-renderer.ts';
import { pageOf, pager, withPage } from '../views/paging.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { relativeTime } from '../views/time.ts';
import { frameOf, type RepoParams } from './repo-context.ts';

const PER_PAGE = 10;

async function releaseBox(
  renderer: ContentRenderer,
  repo: Repository,
  release: Release,
): Promise<Html> {
  const archive = `${repoUrl(repo)}/archive/${encodeSegments(release.tagName)}`;
  const notes = release.body.trim()
    ? html`<div class="markdown-body mt-3">${await renderer.markdown(release.body, {
        links: srcUrl(repo, release.tagName),
        images: rawUrl(repo, release.tagName, '').replace(/\/$/, ''),
        dir: '',
      })}</div>`
    : null;
  return html`<section class="Box mb-4" aria-labelledby="release-${release.id}">
    <div class="Box-body">
      <div class="d-flex flex-items-center flex-wrap kiln-gap">
        <h2 class="h3 kiln-break" id="release-${release.id}">${release.name || release.tagName}</h2>
        ${release.prerelease ? html`<span class="Label Label--attention">Pre-release</span>` : null}
      </div>
      <p class="f6 color-fg-muted mt-1 mb-0">
        <a class="branch-name" href="${srcUrl(repo, release.tagName)}">${icon('tag')} ${release.tagName}</a>
        ${release.author ? html` · <a href="${accountUrl(release.author.handle)}">${release.author.handle}</a>` : null}
        released ${relativeTime(release.createdAt)}
      </p>
      ${notes}
    </div>
    <div class="Box-body f6">
      <h3 class="f6 mb-2">Assets</h3>
      <ul class="list-style-none">
        <li class="py-1"><a href="${archive}.zip">${icon('file-zip')} Source code (zip)</a></li>
        <li class="py-1"><a href="${archive}.tar.gz">${icon('file-zip')} Source code (tar.gz)</a></li>
      </ul>
    </div>
  </section>`;
}

/** The releases of a repository, newest first, a page at a time. */
export function registerReleaseRoutes(server: FastifyInstance, app: App, pages: Pages): void {
  server.get('/repos/:owner/:name/releases', async (request, reply) => {
    const { owner, name } = request.params as RepoParams;
    const page = pageOf(request.query);
    const { visible, items, total } = await app.services.releases.list(
      viewerUser(request.viewer),
      owner,
      name,
      { limit: PER_PAGE, offset: (page - 1) * PER_PAGE },
    );
    const { repo } = visible;
    const [frame, boxes] = await Promise.all([
      frameOf(app, request, visible, 'releases'),
      Promise.all(items.map((release) => releaseBox(pages.renderer, repo, release))),
    ]);
    const body = html`<h2 class="h3 mb-3">Releases</h2>
      ${boxes.length > 0 ? boxes : html`<p class="color-fg-muted">${page > 1 ? 'No more releases.' : 'There are no releases yet.'}</p>`}
      ${pager(page, page * PER_PAGE < total, (n) => withPage(`${repoUrl(repo)}/releases`, n))}`;
    return pages.send(request, reply, {
      title: `Releases · ${repo.owner.handle}/${repo.name}`,
      body: (context) => repoFrame(context, frame, body),
    });
  });
}
