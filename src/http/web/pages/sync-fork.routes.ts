import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { formAction } from '../form-action.ts';
import type { Pages } from '../page.ts';
import { RepoParams } from '../page-params.ts';
import { signedInPoster } from '../require-user.ts';

/** What the sync button uses: federation (404 when off). */
export type SyncForkDeps = {
  readonly services: Pick<DomainServices, 'federation'>;
};

/**
 * "Sync fork" on a fork of a repository of another server: brings its default branch up to the
 * upstream's when that is a fast-forward, and says so; a branch with commits of its own, or an
 * upstream that cannot be reached, is answered with the reason on the page.
 */
export function registerSyncForkRoutes(
  parent: FastifyInstance,
  deps: SyncForkDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  server.post(
    '/repos/:owner/:name/sync-fork',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      const federation = deps.services.federation;
      if (!federation) throw new NotFound('no such page');
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const back = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
      return formAction(
        pages,
        request,
        reply,
        async () => {
          const { mergeType } = await federation.forks.mergeUpstream(user, owner, name);
          const flash = mergeType
            ? 'The fork is up to date with its upstream.'
            : 'Already up to date.';
          return { to: back, flash };
        },
        { answers: ['invalid', 'conflict'], back },
      );
    },
  );
}
