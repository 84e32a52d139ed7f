import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { Federation } from '../../../domain/federation/federation.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import type { Pages } from '../page.ts';
import { RepoParams } from '../page-params.ts';
import { signedInPoster } from '../require-user.ts';

/** What the fork's buttons use: federation (404 when off). */
export type SyncForkDeps = {
  readonly services: Pick<DomainServices, 'federation'>;
};

/** What one of the fork's buttons does; its answer is the flash shown on the fork's page. */
type ForkAction = (
  federation: Federation,
  user: User,
  repo: { owner: string; name: string },
  body: unknown,
) => Promise<string>;

/**
 * The buttons of a fork of a repository of another server. "Sync fork" brings its default
 * branch up to the upstream's when that is a fast-forward; "Propose to upstream" sends a branch
 * to the upstream as a pull request, pending until the upstream answers. What cannot be done (a
 * branch with commits of its own, an upstream out of reach, a branch with nothing to propose or
 * too much) is answered with the reason on the page.
 */
export function registerSyncForkRoutes(
  parent: FastifyInstance,
  deps: SyncForkDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const route = (path: string, act: ForkAction) =>
    server.post(
      `/repos/:owner/:name/${path}`,
      { schema: { params: RepoParams } },
      async (request: FastifyRequest<{ Params: { owner: string; name: string } }>, reply) => {
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
          async () => ({
            to: back,
            flash: await act(federation, user, { owner, name }, request.body),
          }),
          { answers: ['invalid', 'conflict'], back },
        );
      },
    );
  route('sync-fork', async (federation, user, { owner, name }) => {
    const { mergeType } = await federation.forks.mergeUpstream(user, owner, name);
    return mergeType ? 'The fork is up to date with its upstream.' : 'Already up to date.';
  });
  route('propose-upstream', async (federation, user, { owner, name }, body) => {
    await federation.pulls.proposals.propose(user, owner, name, {
      head: field(body, 'head', 255),
      base: field(body, 'base', 255),
      title: field(body, 'title', 255),
      body: field(body, 'body', 1024 * 1024),
    });
    return 'Proposed to the upstream: it is pending until it answers.';
  });
}
