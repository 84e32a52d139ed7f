import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import { mayWrite } from '../../../domain/repos/repo.policy.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { RepoParams, RepoRestParams } from '../page-params.ts';
import { encodeSegments, repoUrl } from '../paths.ts';
import { confirmedDelete } from '../views/confirmed-delete.ts';
import { pageOf, pager, withPage } from '../views/paging.ts';
import { publishedNotes, releaseBox } from '../views/release.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { frameOf, type RepoPageDeps } from './repo-context.ts';

/** What the release pages use. */
export type ReleaseRouteDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'releases'>;
};

const PER_PAGE = 10;

/**
 * The releases of a repository, newest first, a page at a time; and the page of one release at
 * `/releases/tag/{tag}`, the `html_url` of the REST record. Writers see the way to draft, edit
 * and delete (the forms are in release-forms.routes.ts).
 */
export function registerReleaseRoutes(
  parent: FastifyInstance,
  deps: ReleaseRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { releases, code } = deps.services;

  server.get(
    '/repos/:owner/:name/releases',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      const { owner, name } = request.params;
      const page = pageOf(request.query);
      const { visible, items, total } = await releases.list(
        viewerUser(request.viewer),
        owner,
        name,
        {
          limit: PER_PAGE,
          offset: (page - 1) * PER_PAGE,
        },
      );
      const { repo } = visible;
      const [frame, notes] = await Promise.all([
        frameOf(deps, request, visible, 'releases'),
        Promise.all(items.map((release) => publishedNotes(pages.renderer, repo, release))),
      ]);
      const boxes = items.map((release, index) => releaseBox(repo, release, notes[index] ?? null));
      const writer = mayWrite(visible.access);
      const body = html`<div class="d-flex flex-items-center flex-wrap kiln-gap mb-3">
        <h2 class="h3 flex-auto">Releases</h2>
        <a class="btn" href="${repoUrl(repo)}/tags">${icon('tag')} Tags</a>
        ${writer ? html`<a class="btn btn-primary" href="${repoUrl(repo)}/releases/new">Draft a new release</a>` : null}
      </div>
      ${boxes.length > 0 ? boxes : html`<p class="color-fg-muted">${page > 1 ? 'No more releases.' : 'There are no releases yet.'}</p>`}
      ${pager(page, page * PER_PAGE < total, (n) => withPage(`${repoUrl(repo)}/releases`, n))}`;
      return pages.send(request, reply, {
        title: `Releases · ${repo.owner.handle}/${repo.name}`,
        body: (context) => repoFrame(context, frame, body),
      });
    },
  );

  server.get(
    '/repos/:owner/:name/releases/tag/*',
    { schema: { params: RepoRestParams } },
    async (request, reply) => {
      const { owner, name } = request.params;
      const tag = request.params['*'] ?? '';
      if (tag === '') throw new NotFound('release tag does not exist [tag_name: ]');
      const { visible, release } = await releases.get(viewerUser(request.viewer), owner, name, {
        tag,
      });
      const { repo } = visible;
      const [frame, refs, notes] = await Promise.all([
        frameOf(deps, request, visible, 'releases'),
        code.refs(visible),
        publishedNotes(pages.renderer, repo, release),
      ]);
      const commitSha = refs.tags.find((candidate) => candidate.name === tag)?.commitSha;
      const controls = (context: PageContext) =>
        mayWrite(visible.access)
          ? html`<div class="d-flex flex-items-start kiln-gap">
            <a class="btn btn-sm" href="${repoUrl(repo)}/releases/edit/${encodeSegments(tag)}">${icon('pencil')} Edit</a>
            ${confirmedDelete(context, {
              action: `${repoUrl(repo)}/releases/delete`,
              fields: { tag },
              what: `the release ${release.name || tag} (its tag stays)`,
              label: 'Delete this release',
            })}
          </div>`
          : null;
      const back = html`<p class="mb-3"><a href="${repoUrl(repo)}/releases">${icon('arrow-left')} All releases</a></p>`;
      return pages.send(request, reply, {
        title: `${release.name || tag} · ${repo.owner.handle}/${repo.name}`,
        body: (context) =>
          repoFrame(
            context,
            frame,
            html`${back}${releaseBox(repo, release, notes, { standalone: true, commitSha, controls: controls(context) })}`,
          ),
      });
    },
  );
}
