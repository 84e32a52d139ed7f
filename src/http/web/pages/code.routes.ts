import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { mayPush } from '../../../domain/repos/repo.policy.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { sendErrorPage } from '../../errors/web-errors.ts';
import { RAW_POLICY, withoutBody } from '../../raw-answers.ts';
import { html } from '../html.ts';
import type { Pages } from '../page.ts';
import { type PageRequest, RepoParams, RepoRestParams } from '../page-params.ts';
import { srcUrl } from '../paths.ts';
import { formatBytes } from '../views/blob.ts';
import { recentPushes } from '../views/compare.ts';
import { emptyRepo } from '../views/empty-repo.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { cloneUrlOf, frameOf, openRepo, type RepoPageDeps } from './repo-context.ts';
import { fileBody, treeBody } from './tree-page.ts';

/** What the code pages use. */
export type CodeRouteDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'pullSuggestions' | 'lfs'>;
};

/**
 * The code of a repository: its home (default branch root, README, clone URL), directories and
 * files at `/src/{ref}/{path}`, and the raw bytes at `/raw/{ref}/{path}`.
 */
export function registerCodeRoutes(
  parent: FastifyInstance,
  deps: CodeRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { code } = deps.services;

  server.get('/repos/:owner/:name', { schema: { params: RepoParams } }, async (request, reply) => {
    const visible = await openRepo(deps, request);
    const { repo } = visible;
    const frame = await frameOf(deps, request, visible, 'code', {
      fork: true,
      renderer: pages.renderer,
    });
    const about = repo.description
      ? html`<p class="f4 color-fg-muted mb-3 kiln-break">${repo.description}</p>`
      : null;
    if (await code.isEmpty(visible)) {
      const branch = await code.defaultBranch(visible);
      const canPush = mayPush(visible.access);
      const body = emptyRepo(repo, cloneUrlOf(deps, request, visible), branch, canPush);
      return pages.send(request, reply, {
        title: `${repo.owner.handle}/${repo.name}`,
        body: (context) => repoFrame(context, frame, html`${about}${body}`),
      });
    }
    const location = await code.locate(visible, '');
    const [root, recent, lfs] = await Promise.all([
      code.stat(visible, location),
      deps.services.pullSuggestions.recentBranches(viewerUser(request.viewer), repo),
      deps.services.lfs.usage(repo),
    ]);
    const body = await treeBody(deps, pages.renderer, request, visible, location, root, true);
    const stored =
      lfs.objects > 0
        ? html`<p class="f6 color-fg-muted mb-3">Git LFS: ${lfs.objects} ${lfs.objects === 1 ? 'object' : 'objects'}, ${formatBytes(lfs.bytes)}</p>`
        : null;
    return pages.send(request, reply, {
      title: `${repo.owner.handle}/${repo.name}`,
      body: (context) =>
        repoFrame(context, frame, html`${about}${stored}${recentPushes(recent)}${body}`),
    });
  });

  const source = async (request: PageRequest<RepoRestParams>, reply: FastifyReply) => {
    const visible = await openRepo(deps, request);
    const spec = request.params['*'] ?? '';
    if (spec === '')
      return reply.redirect(srcUrl(visible.repo, await code.defaultBranch(visible)), 302);
    const location = await code.locate(visible, spec);
    const item = await code.stat(visible, location);
    const frame = await frameOf(deps, request, visible, 'code');
    const { repo } = visible;
    const title = location.path
      ? `${location.path} at ${location.ref.name} · ${repo.owner.handle}/${repo.name}`
      : `${repo.owner.handle}/${repo.name} at ${location.ref.name}`;
    if (item.kind === 'submodule') {
      return sendErrorPage(pages, request, reply, 404, 'A submodule points to another repository.');
    }
    const body =
      item.kind === 'dir'
        ? await treeBody(deps, pages.renderer, request, visible, location, item, false)
        : await fileBody(deps, pages.renderer, request, visible, location, item);
    return pages.send(request, reply, {
      title,
      body: (context) => repoFrame(context, frame, body),
    });
  };
  server.get('/repos/:owner/:name/src', { schema: { params: RepoRestParams } }, source);
  server.get('/repos/:owner/:name/src/*', { schema: { params: RepoRestParams } }, source);

  server.get(
    '/repos/:owner/:name/raw/*',
    { schema: { params: RepoRestParams } },
    async (request, reply) => {
      const visible = await openRepo(deps, request);
      const spec = request.params['*'] ?? '';
      const location = await code.locate(visible, spec);
      if (location.path === '') return reply.callNotFound();
      const item = await code.stat(visible, location);
      const file = await code.raw(visible, item);
      reply
        .header('Content-Security-Policy', RAW_POLICY)
        .header('X-Content-Type-Options', 'nosniff')
        .header(
          'Cache-Control',
          location.ref.kind === 'commit' ? 'private, max-age=300' : 'no-cache',
        );
      if (file.binary) {
        const name = item.name.replace(/[^\w.-]+/g, '_') || 'file';
        reply
          .type('application/octet-stream')
          .header(
            'Content-Disposition',
            `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(item.name)}`,
          );
      } else {
        reply.type('text/plain; charset=utf-8');
      }
      // A large file streams (from git, or from its LFS object), never whole in memory.
      if (file.stream) {
        reply.header('Content-Length', String(file.sizeBytes));
        return reply.send(request.method === 'HEAD' ? withoutBody(file.stream) : file.stream);
      }
      return reply.send(file.content);
    },
  );
}
