import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app.ts';
import { isDomainError } from '../../../domain/errors.ts';
import type { AccessToken } from '../../../domain/tokens/token.service.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { assertCsrf } from '../csrf.ts';
import { setFlash } from '../flash.ts';
import { field } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { signedInOrRedirect } from '../require-user.ts';

function when(date: Date | null): string {
  return date ? date.toISOString().slice(0, 16).replace('T', ' ') : 'never';
}

function tokensPage(
  context: PageContext,
  tokens: AccessToken[],
  fresh?: { name: string; token: string },
  error?: string,
): Html {
  const rows = tokens.map(
    (token) => html`<li class="Box-row d-flex flex-items-center">
      <div class="flex-auto">
        <strong>${token.name}</strong> <span class="color-fg-muted kiln-token">…${token.lastEight}</span>
        <div class="f6 color-fg-muted">Created ${when(token.createdAt)} · last used ${when(token.lastUsedAt)}</div>
      </div>
      <form method="post" action="/settings/tokens/${token.id}/delete">
        <input type="hidden" name="_csrf" value="${context.csrf}">
        <button class="btn btn-sm btn-danger" type="submit" aria-label="Revoke ${token.name}">Revoke</button>
      </form>
    </li>`,
  );
  return html`<h1 class="h2 mb-3">Personal access tokens</h1>
    <p class="color-fg-muted">Tokens work for the REST API (<code>Authorization: token …</code>) and for git over HTTP (as the password, or as the username with an empty password).</p>
    ${
      fresh
        ? html`<div class="flash flash-success mb-3" role="status">
        <p>New token <strong>${fresh.name}</strong>. Copy it now: it will not be shown again.</p>
        <p class="kiln-token"><code id="new-token">${fresh.token}</code>
        <button type="button" class="btn btn-sm ml-2" data-copy="${fresh.token}" aria-label="Copy token">Copy</button></p>
      </div>`
        : null
    }
    ${error ? html`<div class="flash flash-error mb-3" role="alert">${error}</div>` : null}
    <form method="post" action="/settings/tokens" class="Box p-3 mb-4">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group mt-0"><div class="form-group-header"><label for="token-name">Token name</label></div>
        <div class="form-group-body d-flex"><input class="form-control flex-auto mr-2" id="token-name" name="name" required maxlength="100">
        <button class="btn btn-primary" type="submit">Generate token</button></div></div>
    </form>
    <div class="Box">
      <div class="Box-header"><h2 class="Box-title">Your tokens</h2></div>
      ${tokens.length === 0 ? html`<div class="Box-body color-fg-muted">No tokens yet.</div>` : html`<ul>${rows}</ul>`}
    </div>`;
}

/** Create, list and revoke personal access tokens; a new token's plaintext is shown once. */
export function registerTokenRoutes(server: FastifyInstance, app: App, pages: Pages): void {
  const render = async (
    user: User,
    extra?: { fresh?: { name: string; token: string }; error?: string },
  ) => {
    const tokens = await app.services.tokens.list(user);
    return (context: PageContext) => tokensPage(context, tokens, extra?.fresh, extra?.error);
  };

  server.get('/settings/tokens', async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    reply.header('Cache-Control', 'no-store');
    return pages.send(request, reply, { title: 'Access tokens', body: await render(user) });
  });

  server.post('/settings/tokens', async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    assertCsrf(request);
    reply.header('Cache-Control', 'no-store');
    try {
      const { token, record } = await app.services.tokens.create(
        user,
        field(request.body, 'name', 200),
      );
      return pages.send(request, reply, {
        status: 201,
        title: 'Access tokens',
        body: await render(user, { fresh: { name: record.name, token } }),
      });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      return pages.send(request, reply, {
        status: 422,
        title: 'Access tokens',
        body: await render(user, { error: error.message }),
      });
    }
  });

  server.post('/settings/tokens/:id/delete', async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    assertCsrf(request);
    const { id } = request.params as { id: string };
    await app.services.tokens.revoke(user, id);
    setFlash(reply, { kind: 'success', message: 'Token revoked.' }, pages.secure(request));
    return reply.redirect('/settings/tokens', 303);
  });
}
