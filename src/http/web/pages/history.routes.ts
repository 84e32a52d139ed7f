import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import type { DiffFile } from '../../../git/diff.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { METERED } from '../metered.ts';
import type { Pages } from '../page.ts';
import { CommitParams, type PageRequest, RepoRestParams } from '../page-params.ts';
import { commitsUrl, commitUrl, srcUrl } from '../paths.ts';
import { commitCheck, commitList } from '../views/commit-list.ts';
import {
  DIFF_RENDER_LIMITS,
  keptDiffFiles,
  loadDiffHref,
  loadedFiles,
  ONE_FILE_DIFF_LIMITS,
  prepareDiff,
} from '../views/diff.ts';
import { pageOf, pager, withPage } from '../views/paging.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { fromEpochSeconds, relativeTime } from '../views/time.ts';
import { commitTitle } from '../views/tree.ts';
import { frameOf, openRepo, type RepoPageDeps } from './repo-context.ts';

/** What the history and commit pages use. */
export type HistoryRouteDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'ciRunQueries'>;
};

const PER_PAGE = 30;

/** History pages (`/commits/{ref}/{path}`) and single commits (`/commit/{sha}`); both metered. */
export function registerHistoryRoutes(
  parent: FastifyInstance,
  deps: HistoryRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { code, ciRunQueries } = deps.services;

  const history = async (request: PageRequest<RepoRestParams>, reply: FastifyReply) => {
    const visible = await openRepo(deps, request);
    const { repo } = visible;
    const spec = request.params['*'] ?? '';
    if (spec === '') {
      return reply.redirect(commitsUrl(repo, await code.defaultBranch(visible)), 302);
    }
    const location = await code.locate(visible, spec);
    const page = pageOf(request.query);
    const [result, frame] = await Promise.all([
      code.history(visible, location, { page, perPage: PER_PAGE }),
      frameOf(deps, request, visible, 'code'),
    ]);
    const checks = await ciRunQueries.commitChecks(
      repo,
      result.commits.map((commit) => commit.sha),
    );
    const base = commitsUrl(repo, location.ref.name, location.path);
    const scope = location.path
      ? html` in <a class="text-mono" href="${srcUrl(repo, location.ref.name, location.path)}">${location.path}</a>`
      : null;
    const body = html`<div class="d-flex flex-items-center flex-wrap mb-2 kiln-gap">
        <h2 class="h3 flex-auto kiln-break">History of <span class="branch-name">${location.ref.name}</span>${scope}</h2>
      </div>
      ${result.commits.length === 0 ? html`<p class="color-fg-muted">No more commits.</p>` : commitList(repo, result.commits, checks)}
      ${pager(result.page, result.hasMore, (n) => withPage(base, n))}`;
    return pages.send(request, reply, {
      title: `Commits · ${location.ref.name} · ${repo.owner.handle}/${repo.name}`,
      body: (context) => repoFrame(context, frame, body),
    });
  };
  server.get(
    '/repos/:owner/:name/commits',
    { ...METERED, schema: { params: RepoRestParams } },
    history,
  );
  server.get(
    '/repos/:owner/:name/commits/*',
    { ...METERED, schema: { params: RepoRestParams } },
    history,
  );

  server.get(
    '/repos/:owner/:name/commit/:sha',
    { ...METERED, schema: { params: CommitParams } },
    async (request, reply) => {
      const visible = await openRepo(deps, request);
      const { repo } = visible;
      const { sha } = request.params;
      const only = loadedFiles(request.query);
      const [{ commit, diff }, frame] = await Promise.all([
        code.commit(visible, sha, only),
        frameOf(deps, request, visible, 'code'),
      ]);
      const checks = await ciRunQueries.commitChecks(repo, [commit.sha]);
      const title = commitTitle(commit.message);
      const rest = commit.message.slice(title.length).trim();
      const parents: Html[] = commit.parents.map(
        (parent, index) =>
          html`${index > 0 ? ' + ' : ''}<a class="text-mono" href="${commitUrl(repo, parent)}">${parent.slice(0, 7)}</a>`,
      );
      const committedBy =
        commit.committer.name !== commit.author.name ||
        commit.committer.email !== commit.author.email
          ? html` · committed by <strong>${commit.committer.name}</strong>`
          : null;
      const view = (file: DiffFile) =>
        file.newPath && file.status !== 'deleted'
          ? srcUrl(repo, commit.sha, file.newPath)
          : undefined;
      const here = commitUrl(repo, commit.sha);
      const prepared = await prepareDiff(diff, only ? ONE_FILE_DIFF_LIMITS : DIFF_RENDER_LIMITS);
      const links = {
        view,
        raw: `${here}.diff`,
        ...(only ? {} : { load: (file: DiffFile) => loadDiffHref(here, file) }),
      };
      const body = html`<section class="Box mb-3" aria-labelledby="commit-title">
        <div class="Box-header d-flex flex-items-start flex-wrap kiln-gap">
          <h2 class="h4 flex-auto kiln-break" id="commit-title">${title} ${commitCheck(repo, checks.get(commit.sha))}</h2>
          <a class="btn btn-sm" href="${srcUrl(repo, commit.sha)}">${icon('code')} Browse files</a>
        </div>
        ${rest ? html`<div class="Box-body"><pre class="kiln-pre kiln-message">${rest}</pre></div>` : null}
        <div class="Box-body d-flex flex-wrap flex-items-center kiln-gap f6">
          <span class="flex-auto"><strong>${commit.author.name}</strong> authored ${relativeTime(fromEpochSeconds(commit.author.timestamp))}${committedBy}</span>
          <span class="color-fg-muted">${commit.parents.length === 0 ? 'root commit' : html`${commit.parents.length === 1 ? '1 parent' : `${commit.parents.length} parents`} ${parents}`}</span>
          <span>commit <code class="text-mono">${commit.sha}</code></span>
        </div>
      </section>
      ${only ? html`<p class="mb-3"><a href="${here}">${icon('arrow-left')} All files of this commit</a></p>` : null}
      ${keptDiffFiles(prepared, links, `${here} ${only ? 'one file' : 'all files'}`)}`;
      return pages.send(request, reply, {
        title: `${title} · ${repo.owner.handle}/${repo.name}@${commit.sha.slice(0, 7)}`,
        body: (context) => repoFrame(context, frame, body),
      });
    },
  );

  // The whole of a commit's changes, which its page shows only up to a bound: plain text streamed
  // from git as it writes it, never rendered (so it cannot run in the page's origin) and never
  // held whole. Metered like the commit page: each runs git over the whole commit.
  for (const kind of ['diff', 'patch'] as const) {
    server.get(
      `/repos/:owner/:name/commit/:sha.${kind}`,
      { ...METERED, schema: { params: CommitParams } },
      async (request, reply) => {
        const visible = await openRepo(deps, request);
        const { sha } = request.params;
        const stream = await code.commitDownload(visible, sha, kind);
        return reply
          .type('text/plain; charset=utf-8')
          .header('X-Content-Type-Options', 'nosniff')
          .header(
            'Content-Disposition',
            `inline; filename="${sha.replace(/[^0-9a-f]/gi, '')}.${kind}"`,
          )
          .send(stream);
      },
    );
  }
}
