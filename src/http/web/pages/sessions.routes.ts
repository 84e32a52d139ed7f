import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import type { SessionSummary } from '../../../domain/sessions/session.service.ts';
import { formAction } from '../form-action.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { IdParams } from '../page-params.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';
import { SESSION_COOKIE } from '../session-cookie.ts';
import { settingsFrame } from '../views/settings-nav.ts';
import { relativeTime } from '../views/time.ts';

/** What the signed-in sessions list use. */
export type SessionRouteDeps = {
  readonly services: Pick<DomainServices, 'sessions'>;
};

function sessionRow(context: PageContext, session: SessionSummary): Html {
  const label = session.userAgent === '' ? 'Unknown browser' : session.userAgent;
  return html`<li class="Box-row d-flex flex-items-center" data-session="${session.id}">
    <div class="flex-auto min-width-0">
      <strong class="d-block text-mono f6 wb-break-word">${label}</strong>
      ${session.current ? html`<span class="Label Label--success mr-1">This session</span>` : null}
      <span class="f6 color-fg-muted">Signed in ${relativeTime(session.createdAt)} · last used ${relativeTime(session.lastSeenAt)}</span>
    </div>
    ${
      session.current
        ? null
        : html`<form method="post" action="/settings/sessions/${session.id}/revoke">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <button class="btn btn-sm btn-danger" type="submit" aria-label="Revoke ${label}">Revoke</button>
    </form>`
    }
  </li>`;
}

function sessionsPage(context: PageContext, sessions: SessionSummary[]): Html {
  const others = sessions.filter((session) => !session.current).length;
  return html`<h1 class="h2 pb-2 mb-3 border-bottom">Sessions</h1>
    <p class="color-fg-muted">Browsers signed in to your account. Changing your password signs out all but this one.</p>
    <div class="Box mb-4"><ul>${sessions.map((session) => sessionRow(context, session))}</ul></div>
    <form method="post" action="/settings/sessions/others/revoke">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <button class="btn btn-danger" type="submit" ${others === 0 ? html`disabled` : null}>Sign out everywhere else</button>
    </form>`;
}

/** The person's active sign-ins: list, revoke one, or end every one but this. */
export function registerSessionRoutes(
  parent: FastifyInstance,
  deps: SessionRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { sessions } = deps.services;

  server.get('/settings/sessions', async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    reply.header('Cache-Control', 'no-store');
    const list = await sessions.list(user, request.cookies[SESSION_COOKIE] ?? '');
    return pages.send(request, reply, {
      title: 'Sessions',
      body: (context) => settingsFrame('/settings/sessions', sessionsPage(context, list)),
    });
  });

  server.post(
    '/settings/sessions/:id/revoke',
    { schema: { params: IdParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { id } = request.params;
      const secret = request.cookies[SESSION_COOKIE] ?? '';
      return formAction(pages, request, reply, async () => {
        if (id === 'others') await sessions.endOthers(user, secret);
        else await sessions.revoke(user, id.slice(0, 100));
        const flash = id === 'others' ? 'Signed out everywhere else.' : 'Session revoked.';
        return { to: '/settings/sessions', flash };
      });
    },
  );
}
