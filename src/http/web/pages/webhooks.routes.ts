import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../../config/config.ts';
import { NotFound } from '../../../domain/errors.ts';
import { mayAdministerRepo } from '../../../domain/repos/repo.policy.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import type { HookOwner } from '../../../domain/webhooks/webhook.types.ts';
import { type Confirmation, unlessConfirmed } from '../confirmation.ts';
import { assertCsrf } from '../csrf.ts';
import { formAction } from '../form-action.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { DeliveryParams, type PageRequest, RepoIdParams, RepoParams } from '../page-params.ts';
import { signedInOrRedirect } from '../require-user.ts';
import { webhookPage } from './webhook.view.ts';
import { hookIdOf, hookInputOf } from './webhook-form.ts';
import { type HooksPlace, webhooksPage } from './webhooks.view.ts';

/** What the webhook settings of a repository use. */
export type WebhookSettingsRouteDeps = {
  readonly services: Pick<DomainServices, 'repos' | 'webhooks'>;
  readonly config: Pick<Config, 'secretKey'>;
};

const BASE = '/repos/:owner/:name/settings/hooks';

/** One request to the pages, after the access check. */
type Hooks = { readonly user: User; readonly hooks: HookOwner; readonly place: HooksPlace };

/**
 * A repository's webhooks as pages: the list with the form adding one, and each hook's form with
 * its test button and delivery log. Only the repository's admins see them; to everyone else they
 * do not exist (404, like the other settings pages), and anonymous visitors sign in first. Every
 * change goes through the webhook service, the same one the REST API uses.
 */
export function registerWebhookSettingsRoutes(
  parent: FastifyInstance,
  deps: WebhookSettingsRouteDeps,
  pages: Pages,
): void {
  const { repos, webhooks } = deps.services;
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const secretsEnabled = deps.config.secretKey !== undefined;

  const hooksOf = async (
    request: PageRequest<RepoParams>,
    reply: FastifyReply,
  ): Promise<Hooks | undefined> => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return undefined;
    const { repo, access } = await repos.get(user, request.params.owner, request.params.name);
    // Readers and writers see no settings at all: 404, not 403, as for the CI settings.
    if (!mayAdministerRepo(access)) throw new NotFound('no such page');
    reply.header('Cache-Control', 'no-store');
    const owner = repo.owner.handle;
    const path = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo.name)}/settings/hooks`;
    return {
      user,
      hooks: { kind: 'repo', id: repo.id },
      place: { owner, name: repo.name, path, secretsEnabled },
    };
  };

  const send = (
    request: FastifyRequest,
    reply: FastifyReply,
    title: string,
    body: (context: PageContext) => ReturnType<typeof webhooksPage>,
    status = 200,
  ) => pages.send(request, reply, { status, title, body });

  const renderList = async (
    request: FastifyRequest,
    reply: FastifyReply,
    found: Hooks,
    error?: string,
    status?: number,
  ) => {
    const hooks = await webhooks.list(found.hooks);
    const listed = await Promise.all(
      hooks.map(async (hook) => ({
        hook,
        last: await webhooks.latestDelivery(found.hooks, hook.wireId),
      })),
    );
    const place = { ...found.place, error };
    const title = `Webhooks · ${place.owner}/${place.name}`;
    return send(request, reply, title, (context) => webhooksPage(context, place, listed), status);
  };

  const renderHook = async (
    request: FastifyRequest,
    reply: FastifyReply,
    found: Hooks,
    wireId: number,
    error?: string,
    status?: number,
  ) => {
    const [hook, deliveries] = await Promise.all([
      webhooks.get(found.hooks, wireId),
      webhooks.deliveries(found.hooks, wireId),
    ]);
    const place = { ...found.place, error };
    const title = `Webhook · ${place.owner}/${place.name}`;
    return send(
      request,
      reply,
      title,
      (context) => webhookPage(context, place, hook, deliveries),
      status,
    );
  };

  /** A hook's form action: back to the hook with a message; bad input shows the form again. */
  const onHook = <P extends RepoParams & { id: string }>(
    work: (request: PageRequest<P>, found: Hooks, wireId: number) => Promise<string>,
    to: (found: Hooks, wireId: number) => string = (found, wireId) =>
      `${found.place.path}/${wireId}`,
    confirmation?: Pick<Confirmation, 'title' | 'consequence' | 'button'>,
  ) => {
    return async (request: PageRequest<P>, reply: FastifyReply) => {
      const found = await hooksOf(request, reply);
      if (!found) return reply;
      assertCsrf(request);
      const wireId = hookIdOf(request.params.id);
      const asked =
        confirmation &&
        unlessConfirmed(pages, request, reply, () => ({
          ...confirmation,
          action: `${found.place.path}/${wireId}/delete`,
          cancel: `${found.place.path}/${wireId}`,
        }));
      if (asked) return asked;
      return formAction(
        pages,
        request,
        reply,
        async () => ({ to: to(found, wireId), flash: await work(request, found, wireId) }),
        {
          answers: ['invalid'],
          render: (error, status) => renderHook(request, reply, found, wireId, error, status),
        },
      );
    };
  };

  server.get(BASE, { schema: { params: RepoParams } }, async (request, reply) => {
    const found = await hooksOf(request, reply);
    if (!found) return reply;
    return renderList(request, reply, found);
  });

  server.post(BASE, { schema: { params: RepoParams } }, async (request, reply) => {
    const found = await hooksOf(request, reply);
    if (!found) return reply;
    assertCsrf(request);
    return formAction(
      pages,
      request,
      reply,
      async () => {
        const hook = await webhooks.create(found.hooks, hookInputOf(request.body, 'create'));
        return { to: `${found.place.path}/${hook.wireId}`, flash: 'Webhook added.' };
      },
      {
        answers: ['invalid'],
        render: (error, status) => renderList(request, reply, found, error, status),
      },
    );
  });

  server.get(`${BASE}/:id`, { schema: { params: RepoIdParams } }, async (request, reply) => {
    const found = await hooksOf(request, reply);
    if (!found) return reply;
    return renderHook(request, reply, found, hookIdOf(request.params.id));
  });

  server.post(
    `${BASE}/:id`,
    { schema: { params: RepoIdParams } },
    onHook(async (request, found, wireId) => {
      await webhooks.update(found.hooks, wireId, hookInputOf(request.body, 'edit'));
      return 'Webhook updated.';
    }),
  );

  server.post(
    `${BASE}/:id/delete`,
    { schema: { params: RepoIdParams } },
    onHook(
      async (_request, found, wireId) => {
        await webhooks.delete(found.hooks, wireId);
        return 'Webhook deleted.';
      },
      (found) => found.place.path,
      {
        title: 'Delete this webhook?',
        consequence: 'It stops receiving events at once, and its delivery log is removed.',
        button: 'Delete webhook',
      },
    ),
  );

  server.post(
    `${BASE}/:id/test`,
    { schema: { params: RepoIdParams } },
    onHook(async (_request, found, wireId) => {
      await webhooks.sendTest(found.user, found.place.owner, found.place.name, wireId);
      return 'Test delivery queued: it shows below once sent.';
    }),
  );

  server.post(
    `${BASE}/:id/deliveries/:delivery/redeliver`,
    { schema: { params: DeliveryParams } },
    onHook(async (request, found, wireId) => {
      await webhooks.redeliver(found.hooks, wireId, request.params.delivery);
      return 'Delivery queued again.';
    }),
  );
}
