import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { isConfirmed } from '../confirmation.ts';
import { formAction } from '../form-action.ts';
import { field, fieldValues } from '../forms.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { IdParams } from '../page-params.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';
import { expiryFromForm, revokePage, tokensPage } from '../views/tokens.ts';

/** What the access token settings use. */
export type TokenRouteDeps = {
  readonly services: Pick<DomainServices, 'tokens'>;
};

/**
 * Create, list and revoke personal access tokens; a new token's plaintext is shown once.
 * Revoking takes two steps, a confirmation page and its form, so it works without JavaScript.
 */
export function registerTokenRoutes(
  parent: FastifyInstance,
  deps: TokenRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { tokens } = deps.services;
  const render = async (
    user: User,
    extra?: { fresh?: { name: string; token: string }; error?: string },
  ) => {
    const list = await tokens.list(user);
    return (context: PageContext) => tokensPage(context, list, extra?.fresh, extra?.error);
  };

  server.get('/settings/tokens', async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    reply.header('Cache-Control', 'no-store');
    return pages.send(request, reply, { title: 'Access tokens', body: await render(user) });
  });

  server.post('/settings/tokens', async (request, reply) => {
    const user = signedInPoster(request, reply);
    if (!user) return reply;
    reply.header('Cache-Control', 'no-store');
    const refuse = async (error: string, status = 422) =>
      pages.send(request, reply, {
        status,
        title: 'Access tokens',
        body: await render(user, { error }),
      });
    const expiresAt = expiryFromForm(
      field(request.body, 'expiry', 20),
      field(request.body, 'expires_on', 20),
      Date.now(),
    );
    if (expiresAt === undefined) return refuse('Choose an expiry, or a valid custom date.');
    return formAction(
      pages,
      request,
      reply,
      async () => {
        const { token, record } = await tokens.create(user, field(request.body, 'name', 200), {
          scopes: fieldValues(request.body, 'scope', 100).slice(0, 50),
          expiresAt,
        });
        // The new token is shown once, on this answer, never through a redirect.
        return pages.send(request, reply, {
          status: 201,
          title: 'Access tokens',
          body: await render(user, { fresh: { name: record.name, token } }),
        });
      },
      { render: refuse },
    );
  });

  /** The second step of revoking: the caller's own token named, or NotFound. */
  const askToRevoke = async (
    user: User,
    id: string,
    request: FastifyRequest,
    reply: FastifyReply,
  ) => {
    const token = (await tokens.list(user)).find((candidate) => candidate.id === id);
    if (!token) throw new NotFound('access token does not exist');
    reply.header('Cache-Control', 'no-store');
    return pages.send(request, reply, {
      title: 'Revoke token',
      body: (context) => revokePage(context, token),
    });
  };

  server.get(
    '/settings/tokens/:id/delete',
    { schema: { params: IdParams } },
    async (request, reply) => {
      const user = signedInOrRedirect(request, reply);
      if (!user) return reply;
      return askToRevoke(user, request.params.id, request, reply);
    },
  );

  server.post(
    '/settings/tokens/:id/delete',
    { schema: { params: IdParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { id } = request.params;
      // A post without the confirmation (a form of an older page, a crafted link) is asked again.
      if (!isConfirmed(request.body)) return askToRevoke(user, id, request, reply);
      return formAction(pages, request, reply, async () => {
        await tokens.revoke(user, id);
        return { to: '/settings/tokens', flash: 'Token revoked.' };
      });
    },
  );
}
