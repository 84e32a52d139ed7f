import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { METERED } from '../metered.ts';

/** What patch and diff downloads of pulls use. */
export type PullDownloadRouteDeps = {
  readonly services: Pick<DomainServices, 'pulls'>;
};

type Params = { owner: string; name: string; number: string };

/**
 * `{html_url}.diff` and `{html_url}.patch` of a pull request (Gitea's `diff_url`/`patch_url`):
 * plain text streamed from git, never rendered, so it cannot run in the page's origin. Metered
 * like the pull's pages.
 */
export function registerPullDownloadRoutes(
  server: FastifyInstance,
  deps: PullDownloadRouteDeps,
): void {
  for (const kind of ['diff', 'patch'] as const) {
    server.get<{ Params: Params }>(
      `/repos/:owner/:name/pulls/:number.${kind}`,
      // Each download runs git over the whole range, like the pull's own pages: metered as they are.
      METERED,
      async (request, reply) => {
        const { owner, name, number } = request.params;
        if (!/^\d{1,15}$/.test(number)) throw new NotFound('no such pull request');
        const stream = await deps.services.pulls.download(
          viewerUser(request.viewer),
          owner,
          name,
          Number(number),
          kind,
        );
        return reply
          .type('text/plain; charset=utf-8')
          .header('X-Content-Type-Options', 'nosniff')
          .header('Content-Disposition', `inline; filename="${Number(number)}.${kind}"`)
          .send(stream);
      },
    );
  }
}
