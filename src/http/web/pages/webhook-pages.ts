import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { NotFound } from '../../../domain/errors.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import type { HookOwner } from '../../../domain/webhooks/webhook.types.ts';
import { Type } from '../../../present/schemas/type.ts';
import { type Confirmation, unlessConfirmed } from '../confirmation.ts';
import { assertCsrf } from '../csrf.ts';
import { formAction } from '../form-action.ts';
import type { Html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { webhookPage } from './webhook.view.ts';
import { hookIdOf, hookInputOf } from './webhook-form.ts';
import { type HooksPlace, webhooksPage } from './webhooks.view.ts';

/** Whose hooks a request is about, once the asker was found allowed to manage them. */
export type FoundHooks = {
  readonly user: User;
  readonly hooks: HookOwner;
  readonly place: HooksPlace;
  /** Queues a test delivery to a hook: for scopes whose `place.testable` is true. */
  readonly sendTest?: (wireId: number) => Promise<void>;
  /** What the page sits in, when its place has a frame (a repository's header and tabs). */
  readonly frame?: (context: PageContext, content: Html) => Html;
};

/** One place hooks live (a repository, an organisation, the instance), as its pages need it. */
export type HookScope = {
  /** The list's route, e.g. `/org/:org/settings/hooks`. */
  readonly base: string;
  /** The path parameters of `base`, all strings (read with `pathParam`). */
  readonly params: Readonly<Record<string, TSchema>>;
  /**
   * The asker and the hooks, or undefined once the reply was sent (a redirect to sign in).
   * Throws NotFound for anyone who may not manage them, as for any hidden page.
   */
  find(request: FastifyRequest, reply: FastifyReply): Promise<FoundHooks | undefined>;
  /** Whether its hooks have a test button (and route): a repository's, whose push is sent. */
  readonly testable: boolean;
};

/** A path parameter of a hooks page: declared a string by the route's schema, checked here. */
export function pathParam(request: FastifyRequest, name: string): string {
  const params: unknown = request.params;
  const value = typeof params === 'object' && params !== null ? Reflect.get(params, name) : null;
  if (typeof value !== 'string') throw new NotFound('no such page');
  return value;
}

/**
 * The webhook pages of one scope: the list with the form adding a hook, and each hook's form,
 * test button (where there is one), deletion and delivery log with redelivery. The repository,
 * organisation and admin pages are this one set over different scopes, so they never drift
 * apart. Every change goes through the webhook service, the one the REST API uses.
 */
export function registerHookPages(
  server: FastifyInstance,
  pages: Pages,
  webhooks: DomainServices['webhooks'],
  scope: HookScope,
): void {
  const { base } = scope;
  const listParams = Type.Object({ ...scope.params });
  const hookParams = Type.Object({ ...scope.params, id: Type.String() });
  const deliveryParams = Type.Object({
    ...scope.params,
    id: Type.String(),
    delivery: Type.String(),
  });

  const send = (
    request: FastifyRequest,
    reply: FastifyReply,
    found: FoundHooks,
    title: string,
    content: (context: PageContext) => Html,
    status = 200,
  ) => {
    const { frame } = found;
    const body = frame ? (context: PageContext) => frame(context, content(context)) : content;
    return pages.send(request, reply, { status, title, body });
  };

  const renderList = async (
    request: FastifyRequest,
    reply: FastifyReply,
    found: FoundHooks,
    error?: string,
    status?: number,
  ) => {
    const listed = await webhooks.listWithLatest(found.hooks);
    const place = { ...found.place, error };
    const title = `Webhooks · ${place.label}`;
    return send(
      request,
      reply,
      found,
      title,
      (context) => webhooksPage(context, place, listed),
      status,
    );
  };

  const renderHook = async (
    request: FastifyRequest,
    reply: FastifyReply,
    found: FoundHooks,
    wireId: number,
    error?: string,
    status?: number,
  ) => {
    const [hook, deliveries] = await Promise.all([
      webhooks.get(found.hooks, wireId),
      webhooks.deliveries(found.hooks, wireId),
    ]);
    const place = { ...found.place, error };
    const title = `Webhook · ${place.label}`;
    const body = (context: PageContext) => webhookPage(context, place, hook, deliveries);
    return send(request, reply, found, title, body, status);
  };

  /** A hook's form action: back to the hook with a message; bad input shows the form again. */
  const onHook =
    (
      work: (request: FastifyRequest, found: FoundHooks, wireId: number) => Promise<string>,
      to: (found: FoundHooks, wireId: number) => string = (found, wireId) =>
        `${found.place.path}/${wireId}`,
      confirmation?: Pick<Confirmation, 'title' | 'consequence' | 'button'>,
    ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const found = await scope.find(request, reply);
      if (!found) return reply;
      assertCsrf(request);
      const wireId = hookIdOf(pathParam(request, 'id'));
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

  server.get(base, { schema: { params: listParams } }, async (request, reply) => {
    const found = await scope.find(request, reply);
    if (!found) return reply;
    return renderList(request, reply, found);
  });

  server.post(base, { schema: { params: listParams } }, async (request, reply) => {
    const found = await scope.find(request, reply);
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

  server.get(`${base}/:id`, { schema: { params: hookParams } }, async (request, reply) => {
    const found = await scope.find(request, reply);
    if (!found) return reply;
    return renderHook(request, reply, found, hookIdOf(pathParam(request, 'id')));
  });

  server.post(
    `${base}/:id`,
    { schema: { params: hookParams } },
    onHook(async (request, found, wireId) => {
      await webhooks.update(found.hooks, wireId, hookInputOf(request.body, 'edit'));
      return 'Webhook updated.';
    }),
  );

  server.post(
    `${base}/:id/delete`,
    { schema: { params: hookParams } },
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

  if (scope.testable) {
    server.post(
      `${base}/:id/test`,
      { schema: { params: hookParams } },
      onHook(async (_request, found, wireId) => {
        await found.sendTest?.(wireId);
        return 'Test delivery queued: it shows below once sent.';
      }),
    );
  }

  server.post(
    `${base}/:id/deliveries/:delivery/redeliver`,
    { schema: { params: deliveryParams } },
    onHook(async (request, found, wireId) => {
      await webhooks.redeliver(found.hooks, wireId, pathParam(request, 'delivery'));
      return 'Delivery queued again.';
    }),
  );
}
