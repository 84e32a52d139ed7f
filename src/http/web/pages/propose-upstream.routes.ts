import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import type { Pages } from '../page.ts';
import { RepoParams } from '../page-params.ts';
import { signedInPoster } from '../require-user.ts';

/** What the proposal form uses: federation (404 when off). */
export type ProposeUpstreamDeps = {
  readonly services: Pick<DomainServices, 'federation'>;
};

/**
 * "Propose to upstream" on a fork of a repository of another server: sends a branch of the fork
 * to the upstream as a pull request and says it waits for the upstream's answer; what the
 * upstream would refuse (no such branch, nothing new, too large) is answered on the page.
 */
export function registerProposeUpstreamRoutes(
  parent: FastifyInstance,
  deps: ProposeUpstreamDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  server.post(
    '/repos/:owner/:name/propose-upstream',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      const federation = deps.services.federation;
      if (!federation) throw new NotFound('no such page');
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const back = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
      const input = {
        head: field(request.body, 'head', 255),
        base: field(request.body, 'base', 255),
        title: field(request.body, 'title', 255),
        body: field(request.body, 'body', 1024 * 1024),
      };
      return formAction(
        pages,
        request,
        reply,
        async () => {
          await federation.proposals.propose(user, owner, name, input);
          return { to: back, flash: 'Proposed to the upstream: it is pending until it answers.' };
        },
        { answers: ['invalid'], back },
      );
    },
  );
}
