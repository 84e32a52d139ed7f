import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { Federation } from '../../../domain/federation/federation.ts';
import type { Following } from '../../../domain/federation/following.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { repoUrl } from '../paths.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';
import { settingsFrame } from '../views/settings-nav.ts';

const PATH = '/settings/federation';

/** What the fediverse settings page uses. */
export type FederationSettingsDeps = {
  readonly services: Pick<DomainServices, 'federation'>;
};

const STATE_LABELS: Record<Following['state'], Html> = {
  pending: html`<span class="Label Label--attention">requested</span>`,
  accepted: html`<span class="Label Label--success">following</span>`,
  rejected: html`<span class="Label Label--danger">refused</span>`,
};

function actorForm(context: PageContext, action: string, label: string, button: string): Html {
  return html`<form method="post" action="${PATH}/${action}" class="d-flex mb-2 kiln-gap-sm">
    <input type="hidden" name="_csrf" value="${context.csrf}">
    <input class="form-control flex-auto" type="text" name="actor" required maxlength="2000"
      aria-label="${label}" placeholder="@name@forge.example or https://forge.example/repos/name/repo">
    <button class="btn" type="submit">${button}</button>
  </form>`;
}

function row(context: PageContext, actor: string, badge: Html, action: string, button: string) {
  return html`<li class="Box-row d-flex flex-items-center" data-actor="${actor}">
    <a class="flex-auto min-width-0 wb-break-word" href="${actor}" rel="nofollow noopener">${actor}</a>
    ${badge}
    <form method="post" action="${PATH}/${action}" class="ml-2">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <input type="hidden" name="actor" value="${actor}">
      <button class="btn btn-sm" type="submit">${button}</button>
    </form>
  </li>`;
}

function listOf(items: readonly Html[], empty: string): Html {
  if (items.length === 0) return html`<p class="color-fg-muted mb-3">${empty}</p>`;
  return html`<div class="Box mb-3"><ul>${items}</ul></div>`;
}

function federationPage(
  context: PageContext,
  following: readonly Following[],
  starred: readonly string[],
): Html {
  return html`<h1 class="h2 pb-2 mb-3 border-bottom">Fediverse</h1>
    <p class="color-fg-muted">Follow and star users and repositories on other servers (Kiln, Forgejo, Mastodon…). Name one as <code>@name@host</code> or by its URL.</p>
    <h2 class="h4 mb-2">Following</h2>
    ${actorForm(context, 'follow', 'Actor to follow', 'Follow')}
    ${listOf(
      following.map((entry) =>
        row(context, entry.actor, STATE_LABELS[entry.state], 'unfollow', 'Unfollow'),
      ),
      'You follow nobody on other servers.',
    )}
    <h2 class="h4 mb-2">Starred</h2>
    ${actorForm(context, 'star', 'Repository to star', 'Star')}
    ${listOf(
      starred.map((actor) =>
        row(context, actor, html`<span class="Label">starred</span>`, 'unstar', 'Unstar'),
      ),
      'You have starred no repository on another server.',
    )}
    <h2 class="h4 mb-2">Fork a repository of another server</h2>
    <p class="color-fg-muted">Its branches and tags are copied into a new public repository of yours, and its server is told of the fork.</p>
    ${actorForm(context, 'fork', 'Repository to fork', 'Fork')}`;
}

/** One form of the page: what it does with the actor it names, and what it says after. */
type ActorAction = {
  /** Does it; answers where to go next, or undefined to come back to this page. */
  readonly run: (federation: Federation, user: User, actor: string) => Promise<string | undefined>;
  readonly flash: string;
};

/** Work after which the page is shown again. */
async function stay(work: Promise<unknown>): Promise<undefined> {
  await work;
  return undefined;
}

const ACTIONS: Record<'follow' | 'unfollow' | 'star' | 'unstar' | 'fork', ActorAction> = {
  follow: {
    run: (f, user, actor) => stay(f.following.follow(user, actor)),
    flash: 'Follow requested.',
  },
  unfollow: {
    run: (f, user, actor) => stay(f.following.unfollow(user, actor)),
    flash: 'Unfollowed.',
  },
  star: { run: (f, user, actor) => stay(f.following.star(user, actor, true)), flash: 'Starred.' },
  unstar: {
    run: (f, user, actor) => stay(f.following.star(user, actor, false)),
    flash: 'Star taken back.',
  },
  fork: {
    run: async (f, user, actor) => repoUrl((await f.forks.fork(user, actor)).repo),
    flash: 'Forked.',
  },
};

/**
 * `/settings/federation`: a signed-in person follows, unfollows, stars and unstars remote actors,
 * forks remote repositories,
 * and sees each follow's state (requested until the remote accepts, refused after a `Reject`).
 * Every page answers 404 when federation is off.
 */
export function registerFederationSettingsRoutes(
  parent: FastifyInstance,
  deps: FederationSettingsDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const federationOrMissing = (): Federation => {
    const federation = deps.services.federation;
    if (!federation) throw new NotFound('no such page');
    return federation;
  };

  server.get(PATH, async (request, reply) => {
    const federation = federationOrMissing();
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    reply.header('Cache-Control', 'no-store');
    const [following, starred] = await Promise.all([
      federation.following.following(user),
      federation.following.starred(user),
    ]);
    return pages.send(request, reply, {
      title: 'Fediverse',
      body: (context) => settingsFrame(PATH, federationPage(context, following, starred)),
    });
  });

  for (const [name, { run, flash }] of Object.entries(ACTIONS)) {
    server.post(`${PATH}/${name}`, async (request: FastifyRequest, reply) => {
      const federation = federationOrMissing();
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const actor = field(request.body, 'actor', 2000);
      return formAction(
        pages,
        request,
        reply,
        async () => {
          return { to: (await run(federation, user, actor)) ?? PATH, flash };
        },
        { answers: ['invalid'], back: PATH },
      );
    });
  }
}
