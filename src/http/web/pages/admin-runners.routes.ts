import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../../config/config.ts';
import { NotFound } from '../../../domain/errors.ts';
import type { RunnerActor } from '../../../domain/runners/runner.policy.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { baseUrlOf } from '../../base-url.ts';
import { type Confirmation, unlessConfirmed } from '../confirmation.ts';
import { assertCsrf } from '../csrf.ts';
import { formAction } from '../form-action.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { IdParams } from '../page-params.ts';
import { type FreshToken, RUNNER_DELETION, TOKEN_DELETION } from './admin-runner-tables.view.ts';
import { adminRunnersPage } from './admin-runners.view.ts';

/** What the runner admin pages use. */
export type AdminRunnerRouteDeps = {
  readonly services: Pick<DomainServices, 'runnerAdmin' | 'admins'>;
  readonly config: Pick<Config, 'baseUrl' | 'http'>;
};

const TITLE = 'Runners · Admin';

/**
 * `/admin/*` pages. SPEC.md: only signed-in people listed in SERVICE_ADMIN_HANDLES may see them;
 * everyone else, anonymous included, gets 404, as if there were nothing here (so an empty list
 * closes the area to everyone). Plain forms with CSRF tokens; nothing needs JavaScript.
 */
export function registerAdminRoutes(
  parent: FastifyInstance,
  deps: AdminRunnerRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { runnerAdmin } = deps.services;

  /** The admin making the request, or NotFound, checked before anything else is read. */
  const adminOf = (request: FastifyRequest, reply: FastifyReply): RunnerActor => {
    const user = viewerUser(request.viewer);
    if (user === undefined || !deps.services.admins.isAdmin(user)) {
      throw new NotFound('no such page');
    }
    // Admin pages list what runners exist and may show a token: never cache them.
    reply.header('Cache-Control', 'no-store');
    return { kind: 'user', user };
  };

  const render = async (actor: RunnerActor, fresh?: FreshToken) => {
    const [runners, tokens] = await Promise.all([
      runnerAdmin.listRunners(actor, undefined),
      runnerAdmin.listTokens(actor, undefined),
    ]);
    return (context: PageContext) => adminRunnersPage(context, runners, tokens, fresh);
  };

  server.get('/admin/runners', async (request, reply) => {
    const actor = adminOf(request, reply);
    return pages.send(request, reply, { title: TITLE, body: await render(actor) });
  });

  server.post('/admin/runners/tokens', async (request, reply) => {
    const actor = adminOf(request, reply);
    assertCsrf(request);
    const { token } = await runnerAdmin.createToken(actor, { kind: 'instance' });
    const fresh = { token, baseUrl: baseUrlOf(request, deps.config) };
    return pages.send(request, reply, {
      status: 201,
      title: TITLE,
      body: await render(actor, fresh),
    });
  });

  /** A delete button's form: an admin, a CSRF token, the id in the path, back to the list. */
  const deleteRoute = (
    url: string,
    remove: (actor: RunnerActor, id: string) => Promise<unknown>,
    flash: string,
    confirmation: Pick<Confirmation, 'title' | 'consequence' | 'button'>,
  ) =>
    server.post(url, { schema: { params: IdParams } }, async (request, reply) => {
      const actor = adminOf(request, reply);
      assertCsrf(request);
      const asked = unlessConfirmed(pages, request, reply, () => ({
        ...confirmation,
        action: url.replace(':id', encodeURIComponent(request.params.id)),
        cancel: '/admin/runners',
      }));
      if (asked) return asked;
      return formAction(pages, request, reply, async () => {
        await remove(actor, request.params.id);
        return { to: '/admin/runners', flash };
      });
    });

  deleteRoute(
    '/admin/runners/tokens/:id/delete',
    (actor, id) => runnerAdmin.deleteToken(actor, undefined, id),
    TOKEN_DELETION.done,
    TOKEN_DELETION.confirmation,
  );
  deleteRoute(
    '/admin/runners/:id/delete',
    (actor, id) => runnerAdmin.deleteRunner(actor, undefined, id),
    RUNNER_DELETION.done,
    RUNNER_DELETION.confirmation,
  );
}
