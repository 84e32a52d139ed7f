import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { Block } from '../../../domain/federation/blocks.ts';
import type { Federation } from '../../../domain/federation/federation.ts';
import type { KnownInstance } from '../../../domain/federation/instances.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { signedInPoster } from '../require-user.ts';
import { when } from './admin-runner-tables.view.ts';
import { answerBlockForm, type BlockAction } from './federation-block-form.ts';

const PATH = '/admin/federation';
const CELL = 'p-2 border-top';
const HEAD = 'p-2 text-left f6 color-fg-muted';

/** What the federation admin page uses. */
export type AdminFederationDeps = {
  readonly services: Pick<DomainServices, 'admins' | 'federation'>;
};

function blockForm(context: PageContext, action: 'block' | 'unblock', host: string): Html {
  const danger = action === 'block' ? 'btn-danger' : '';
  return html`<form method="post" action="${PATH}/${action}">
    <input type="hidden" name="_csrf" value="${context.csrf}">
    <input type="hidden" name="host" value="${host}">
    <button class="btn btn-sm ${danger}" type="submit" aria-label="${action} ${host}">${action === 'block' ? 'Block' : 'Unblock'}</button>
  </form>`;
}

function instanceRow(context: PageContext, known: KnownInstance): Html {
  const state = known.blocked
    ? html`<span class="Label Label--danger">blocked</span>`
    : known.failingSince
      ? html`<span class="Label Label--attention">failing since ${when(known.failingSince)}</span>`
      : html`<span class="Label Label--success">ok</span>`;
  return html`<tr data-host="${known.host}">
    <td class="${CELL}"><code>${known.host}</code></td>
    <td class="${CELL}">${state}</td>
    <td class="${CELL}" data-actors>${known.actorsSeen}</td>
    <td class="${CELL}">${known.lastActivity ? when(known.lastActivity) : '–'}</td>
    <td class="${CELL}">${known.followers}</td>
    <td class="${CELL}">${known.stars}</td>
    <td class="${CELL}" data-pending>${known.pending}${known.retrying > 0 ? ` (${known.retrying} retrying)` : ''}</td>
    <td class="${CELL}" data-failed>${known.failed}</td>
    <td class="${CELL}">${blockForm(context, known.blocked ? 'unblock' : 'block', known.host)}</td>
  </tr>`;
}

function actorBlocks(context: PageContext, actors: readonly Block[]): Html {
  const rows = actors.map(
    (
      block,
    ) => html`<li class="Box-row d-flex flex-items-center" data-blocked-actor="${block.target}">
      <code class="flex-auto">${block.target}</code>
      <form method="post" action="${PATH}/actors/unblock">
        <input type="hidden" name="_csrf" value="${context.csrf}">
        <input type="hidden" name="actor" value="${block.target}">
        <button class="btn btn-sm" type="submit" aria-label="unblock ${block.target}">Unblock</button>
      </form>
    </li>`,
  );
  return html`<h2 class="h4 mb-2 mt-4">Blocked actors</h2>
    <p class="color-fg-muted mb-2">A blocked actor's activities are refused everywhere on this server, and it may propose nothing.</p>
    ${actors.length === 0 ? html`<p class="color-fg-muted">No actor is blocked.</p>` : html`<ul class="Box mb-3">${rows}</ul>`}
    <form method="post" action="${PATH}/actors/block" class="d-flex kiln-gap-sm">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <input class="form-control" type="text" name="actor" required maxlength="2000" aria-label="Actor to block" placeholder="https://other.example/users/bob">
      <button class="btn btn-danger" type="submit">Block</button>
    </form>`;
}

function page(
  context: PageContext,
  instances: readonly KnownInstance[],
  actors: readonly Block[],
): Html {
  const headings = [
    'Server',
    'State',
    'Actors seen',
    'Last activity',
    'Followers here',
    'Stars here',
    'Deliveries pending',
    'Deliveries failed',
    '',
  ];
  const table =
    instances.length === 0
      ? html`<p class="color-fg-muted">No other server has talked to this one yet.</p>`
      : html`<table class="width-full mb-4" style="border-collapse: collapse">
    <thead><tr>${headings.map((name) => html`<th scope="col" class="${HEAD}">${name}</th>`)}</tr></thead>
    <tbody>${instances.map((known) => instanceRow(context, known))}</tbody>
  </table>`;
  return html`<div class="container-lg px-3 py-4">
    <h1 class="h2 mb-3">Federation</h1>
    <p class="color-fg-muted mb-3">Other servers this one federates with (see docs/federation.md). A blocked server's activities are refused and nothing more is delivered to it; what was queued for it is dropped.</p>
    ${table}
    <h2 class="h4 mb-2">Block a server</h2>
    <form method="post" action="${PATH}/block" class="d-flex kiln-gap-sm">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <input class="form-control" type="text" name="host" required maxlength="300" aria-label="Host to block" placeholder="bad.example">
      <button class="btn btn-danger" type="submit">Block</button>
    </form>
    ${actorBlocks(context, actors)}
  </div>`;
}

/**
 * `/admin/federation`: the servers Kiln knows (actors seen, last activity, followers and stars
 * here, deliveries pending and failed) and blocking or unblocking one. Instance admins only: 404
 * to everyone else, like every `/admin` page, and to everyone when federation is off.
 */
export function registerAdminFederationRoutes(
  server: FastifyInstance,
  deps: AdminFederationDeps,
  pages: Pages,
): void {
  const federationFor = (user: User | undefined): Federation => {
    const { federation, admins } = deps.services;
    if (!federation || user === undefined || !admins.isAdmin(user)) {
      throw new NotFound('no such page');
    }
    return federation;
  };

  server.get(PATH, async (request, reply) => {
    const federation = federationFor(viewerUser(request.viewer));
    reply.header('Cache-Control', 'no-store');
    const [instances, { actors }] = await Promise.all([
      federation.instances.list(),
      federation.blocks.site(),
    ]);
    return pages.send(request, reply, {
      title: 'Federation · Admin',
      body: (context) => page(context, instances, actors),
    });
  });

  const change =
    (action: 'block' | 'unblock') => async (request: FastifyRequest, reply: FastifyReply) => {
      // Who it is comes first, so that a stranger learns nothing from a CSRF refusal.
      const federation = federationFor(viewerUser(request.viewer));
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const host = field(request.body, 'host', 300);
      return formAction(
        pages,
        request,
        reply,
        async () => {
          await federation.instances[action](host);
          return { to: PATH, flash: `${action === 'block' ? 'Blocked' : 'Unblocked'} ${host}.` };
        },
        { answers: ['invalid'], back: PATH },
      );
    };
  server.post(`${PATH}/block`, change('block'));
  server.post(`${PATH}/unblock`, change('unblock'));

  const changeActor =
    (action: BlockAction) => async (request: FastifyRequest, reply: FastifyReply) => {
      const federation = federationFor(viewerUser(request.viewer));
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const actor = field(request.body, 'actor', 2000);
      return answerBlockForm(pages, request, reply, { action, back: PATH }, () =>
        action === 'block'
          ? federation.blocks.blockSite('actor', actor)
          : federation.blocks.unblockSite('actor', actor),
      );
    };
  server.post(`${PATH}/actors/block`, changeActor('block'));
  server.post(`${PATH}/actors/unblock`, changeActor('unblock'));
}
