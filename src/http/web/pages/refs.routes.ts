import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import { html } from '../html.ts';
import { icon } from '../icons.ts';
import type { Pages } from '../page.ts';
import { RepoParams } from '../page-params.ts';
import { repoUrl } from '../paths.ts';
import { pageOf, pager, withPage } from '../views/paging.ts';
import { refRow } from '../views/ref-row.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { frameOf, openRepo, type RepoPageDeps } from './repo-context.ts';

/** What the branch list use. */
export type RefRouteDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'protectedBranches'>;
};

const PER_PAGE = 50;

/** The branch list, a page at a time (the tip commit of each listed ref is read). */
export function registerRefRoutes(parent: FastifyInstance, deps: RefRouteDeps, pages: Pages): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { code } = deps.services;

  server.get(
    '/repos/:owner/:name/branches',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      const visible = await openRepo(deps, request);
      const { repo } = visible;
      const page = pageOf(request.query);
      const [refs, defaultBranch, protectedNames, frame] = await Promise.all([
        code.refs(visible),
        code.defaultBranch(visible),
        deps.services.protectedBranches.names(repo),
        frameOf(deps, request, visible, 'code'),
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
    },
  );
}
