import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { PullParams } from '../page-params.ts';

/** What the mergeability answer uses. */
export type MergeabilityRouteDeps = {
  readonly services: Pick<DomainServices, 'pulls' | 'mergeability'>;
};

/**
 * `…/pulls/{n}/mergeability`: the pull page's script asks here whether the pull merges cleanly
 * (`{"state":"clean"}`, `{"state":"conflict","files":[…]}`; `unknown` when git cannot tell,
 * `closed` for a pull that is not open). It waits for the check, which runs once per pair of tips
 * whoever asks, and is remembered; the page itself never waits.
 */
export function registerMergeabilityRoutes(
  parent: FastifyInstance,
  deps: MergeabilityRouteDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  server.get(
    '/repos/:owner/:name/pulls/:number/mergeability',
    { schema: { params: PullParams } },
    async (request, reply) => {
      const { owner, name, number } = request.params;
      const found = await deps.services.pulls.get(
        viewerUser(request.viewer),
        owner,
        name,
        /^\d{1,15}$/.test(number) ? Number(number) : 0,
      );
      const answer =
        found.pull.state === 'open'
          ? ((await deps.services.mergeability.checkFor(found)) ?? { state: 'unknown' })
          : { state: 'closed' };
      // Answers differ by viewer and change with every push: never kept by a cache.
      return reply.header('Cache-Control', 'no-store').send(answer);
    },
  );
}
