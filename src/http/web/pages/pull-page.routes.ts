import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { html } from '../html.ts';
import { METERED } from '../metered.ts';
import type { Pages } from '../page.ts';
import { PullParams } from '../page-params.ts';
import { commitList } from '../views/commit-list.ts';
import { registerPullConversationRoute } from './pull-conversation.routes.ts';
import { registerPullFilesRoute } from './pull-files.routes.ts';
import { type PullPageRouteDeps, pullPageFrame } from './pull-page-frame.ts';
import { registerPullStateRoutes } from './pull-state.routes.ts';

export type { PullPageRouteDeps };

/**
 * One pull request: the conversation (pull-conversation.routes.ts), commits and files
 * (pull-files.routes.ts) tabs in one frame (pull-page-frame.ts), and the forms that act on it.
 */
export function registerPullPageRoutes(
  parent: FastifyInstance,
  deps: PullPageRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { pulls, ciRunQueries } = deps.services;
  const frame = pullPageFrame(deps, pages);

  registerPullConversationRoute(parent, deps, pages, frame);

  server.get(
    '/repos/:owner/:name/pulls/:number/commits',
    { ...METERED, schema: { params: PullParams } },
    async (request, reply) => {
      const found = await frame.load(request);
      const commits = await pulls.commits(found);
      const checks = await ciRunQueries.commitChecks(
        found.base.repo,
        commits.map((commit) => commit.sha),
      );
      return frame.render(
        request,
        reply,
        found,
        'commits',
        () =>
          commits.length === 0
            ? html`<p class="color-fg-muted">No commits.</p>`
            : commitList(found.base.repo, [...commits].reverse(), checks),
        { commits },
      );
    },
  );

  registerPullFilesRoute(parent, deps, pages, frame);
  registerPullStateRoutes(parent, deps, pages);
}
