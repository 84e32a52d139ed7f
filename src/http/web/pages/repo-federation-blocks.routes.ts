import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { Block, BlockKind } from '../../../domain/federation/blocks.ts';
import type { Federation } from '../../../domain/federation/federation.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { field } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { RepoParams } from '../page-params.ts';
import { repoUrl } from '../paths.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { answerBlockForm } from './federation-block-form.ts';
import { frameOf, type RepoPageDeps } from './repo-context.ts';

/** What the page uses: the repository pages' parts and federation (404 when off). */
export type RepoFederationBlockDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'federation'>;
};

function kindOf(body: unknown): BlockKind {
  return field(body, 'kind', 10) === 'host' ? 'host' : 'actor';
}

function blockRow(context: PageContext, base: string, block: Block): Html {
  return html`<li class="Box-row d-flex flex-items-center" data-block="${block.target}">
    <span class="flex-auto"><span class="Label mr-2">${block.kind === 'host' ? 'server' : 'actor'}</span><code>${block.target}</code></span>
    <form method="post" action="${base}/unblock">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <input type="hidden" name="kind" value="${block.kind}">
      <input type="hidden" name="target" value="${block.target}">
      <button class="btn btn-sm" type="submit" aria-label="Unblock ${block.target}">Unblock</button>
    </form>
  </li>`;
}

function page(context: PageContext, repo: Repository, blocks: readonly Block[]): Html {
  const base = `${repoUrl(repo)}/settings/federation`;
  const list =
    blocks.length === 0
      ? html`<p class="color-fg-muted">Nobody is blocked from this repository.</p>`
      : html`<ul class="Box mb-3">${blocks.map((block) => blockRow(context, base, block))}</ul>`;
  return html`<div>
    <h2 class="h3 mb-2">Blocked from other servers</h2>
    <p class="color-fg-muted mb-3">A blocked actor (or every actor of a blocked server) may not propose pull requests to this repository, and this repository's inbox refuses its activities.</p>
    ${list}
    <form method="post" action="${base}/block" class="d-flex kiln-gap-sm">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <select class="form-select" name="kind" aria-label="What to block">
        <option value="actor">Actor (its URL)</option>
        <option value="host">Server (its host)</option>
      </select>
      <input class="form-control flex-auto" type="text" name="target" required maxlength="2000" aria-label="Actor URL or host to block" placeholder="https://other.example/users/bob">
      <button class="btn btn-danger" type="submit">Block</button>
    </form>
  </div>`;
}

/**
 * `/repos/{owner}/{repo}/settings/federation`: the repository's blocks of remote actors and
 * servers, for its administrators (the domain asks; anyone else gets what `require` answers),
 * and 404 when federation is off.
 */
export function registerRepoFederationBlockRoutes(
  parent: FastifyInstance,
  deps: RepoFederationBlockDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const params = { schema: { params: RepoParams } };
  const federationOn = (): Federation => {
    if (!deps.services.federation) throw new NotFound('no such page');
    return deps.services.federation;
  };

  server.get('/repos/:owner/:name/settings/federation', params, async (request, reply) => {
    const federation = federationOn();
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    const { owner, name } = request.params;
    const visible = await deps.services.repos.require(user, owner, name, 'admin');
    const [blocks, frame] = await Promise.all([
      federation.blocks.ofRepo(user, owner, name),
      frameOf(deps, request, visible, 'settings'),
    ]);
    reply.header('Cache-Control', 'no-store');
    return pages.send(request, reply, {
      title: `Federation · ${visible.repo.owner.handle}/${visible.repo.name}`,
      body: (context) => repoFrame(context, frame, page(context, visible.repo, blocks)),
    });
  });

  for (const action of ['block', 'unblock'] as const) {
    server.post(
      `/repos/:owner/:name/settings/federation/${action}`,
      params,
      async (request, reply) => {
        const federation = federationOn();
        const user = signedInPoster(request, reply);
        if (!user) return reply;
        const { owner, name } = request.params;
        const { repo } = await deps.services.repos.require(user, owner, name, 'admin');
        const back = `${repoUrl(repo)}/settings/federation`;
        const block = { kind: kindOf(request.body), target: field(request.body, 'target', 2000) };
        return answerBlockForm(pages, request, reply, { action, back }, async () => {
          if (action === 'block') return federation.blocks.blockForRepo(user, owner, name, block);
          await federation.blocks.unblockForRepo(user, owner, name, block);
          return block.target;
        });
      },
    );
  }
}
