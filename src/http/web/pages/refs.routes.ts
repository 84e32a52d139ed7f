import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app.ts';
import type { RefSummary } from '../../../domain/code/code.types.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { Pages } from '../page.ts';
import { commitsUrl, commitUrl, repoUrl, srcUrl } from '../paths.ts';
import { pageOf, pager, withPage } from '../views/paging.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { fromEpochSeconds, relativeTime } from '../views/time.ts';
import { frameOf, openRepo } from './repo-context.ts';

const PER_PAGE = 50;

function refRow(
  repo: Repository,
  ref: RefSummary,
  kind: 'branch' | 'tag',
  labels: Html | null,
): Html {
  const commit = ref.commit;
  return html`<li class="Box-row d-flex flex-items-center flex-wrap kiln-gap">
    <div class="flex-auto min-width-0">
      <a class="branch-name kiln-break" href="${srcUrl(repo, ref.name)}">${icon(kind === 'tag' ? 'tag' : 'git-branch')} ${ref.name}</a>${labels}
      ${commit ? html`<p class="f6 color-fg-muted mb-0 mt-1">Updated ${relativeTime(fromEpochSeconds(commit.committer.timestamp))} by ${commit.author.name}</p>` : null}
    </div>
    <a class="btn btn-sm text-mono" href="${commitUrl(repo, ref.sha)}">${ref.sha.slice(0, 7)}</a>
    <a class="btn btn-sm" href="${commitsUrl(repo, ref.name)}">${icon('history')}<span class="sr-only">History of ${ref.name}</span></a>
  </li>`;
}

/** Branch and tag lists, a page at a time (the tip commit of each listed ref is read). */
export function registerRefRoutes(server: FastifyInstance, app: App, pages: Pages): void {
  const { code } = app.services;

  server.get('/repos/:owner/:name/branches', async (request, reply) => {
    const visible = await openRepo(app, request);
    const { repo } = visible;
    const page = pageOf(request.query);
    const [refs, defaultBranch, protectedNames, frame] = await Promise.all([
      code.refs(visible),
      code.defaultBranch(visible),
      app.services.protectedBranches.names(repo),
      frameOf(app, request, visible, 'code'),
    ]);
    const ordered = [
      ...refs.branches.filter((branch) => branch.name === defaultBranch),
      ...refs.branches.filter((branch) => branch.name !== defaultBranch),
    ];
    const slice = ordered.slice((page - 1) * PER_PAGE, page * PER_PAGE);
    const tips = await code.tips(visible, slice);
    const isProtected = new Set(protectedNames);
    const rows = tips.map((tip) =>
      refRow(
        repo,
        tip,
        'branch',
        html`${tip.name === defaultBranch ? html`<span class="Label ml-2">default</span>` : null}${isProtected.has(tip.name) ? html`<span class="Label Label--attention ml-2">${icon('shield-lock')} protected</span>` : null}`,
      ),
    );
    const body = html`<h2 class="h3 mb-3">Branches</h2>
      ${rows.length === 0 ? html`<p class="color-fg-muted">No branches yet.</p>` : html`<ul class="Box kiln-list">${rows}</ul>`}
      ${pager(page, ordered.length > page * PER_PAGE, (n) => withPage(`${repoUrl(repo)}/branches`, n))}`;
    return pages.send(request, reply, {
      title: `Branches · ${repo.owner.handle}/${repo.name}`,
      body: (context) => repoFrame(context, frame, body),
    });
  });

  server.get('/repos/:owner/:name/tags', async (request, reply) => {
    const visible = await openRepo(app, request);
    const { repo } = visible;
    const page = pageOf(request.query);
    const [refs, frame] = await Promise.all([
      code.refs(visible),
      frameOf(app, request, visible, 'code'),
    ]);
    // Newest versions first: v1.10 after v1.9, as people read version numbers.
    const ordered = refs.tags
      .filter((tag) => tag.commitSha !== undefined)
      .map((tag) => ({ name: tag.name, sha: tag.commitSha as string }))
      .sort((a, b) => b.name.localeCompare(a.name, 'en', { numeric: true }));
    const slice = ordered.slice((page - 1) * PER_PAGE, page * PER_PAGE);
    const tips = await code.tips(visible, slice);
    const rows = tips.map((tip) => refRow(repo, tip, 'tag', null));
    const body = html`<h2 class="h3 mb-3">Tags</h2>
      ${rows.length === 0 ? html`<p class="color-fg-muted">No tags yet.</p>` : html`<ul class="Box kiln-list">${rows}</ul>`}
      ${pager(page, ordered.length > page * PER_PAGE, (n) => withPage(`${repoUrl(repo)}/tags`, n))}`;
    return pages.send(request, reply, {
      title: `Tags · ${repo.owner.handle}/${repo.name}`,
      body: (context) => repoFrame(context, frame, body),
    });
  });
}
