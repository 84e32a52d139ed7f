import type { FastifyInstance } from 'fastify';
import type { OrgVisibility } from '../../../domain/orgs/org.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { accountUrl } from '../paths.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';

/** What creating an organisation uses. */
export type OrgNewRouteDeps = {
  readonly services: Pick<DomainServices, 'orgs'>;
};

type OrgValues = { readonly name: string; readonly visibility: OrgVisibility };

const TITLE = 'New organisation';

function newOrgForm(context: PageContext, values: OrgValues, error?: string): Html {
  const radio = (value: OrgVisibility, label: string, hint: string, glyph: string) =>
    html`<div class="form-checkbox">
      <label><input type="radio" name="visibility" value="${value}" ${values.visibility === value ? html`checked` : null} aria-describedby="org-hint-${value}"> ${icon(glyph)} ${label}</label>
      <p class="note" id="org-hint-${value}">${hint}</p>
    </div>`;
  return html`<div class="kiln-medium">
    <h1 class="h2 mb-1">New organisation</h1>
    <p class="color-fg-muted mb-3">An organisation owns repositories on behalf of a group of people. You become its first owner.</p>
    ${error ? html`<div class="flash flash-error mb-3" role="alert">${error}</div>` : null}
    <form method="post" action="/org/create" class="Box p-3">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group my-0">
        <div class="form-group-header"><label for="org-name">Organisation name</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="org-name" name="name" required maxlength="40" pattern="[A-Za-z0-9._\\-]+" value="${values.name}" aria-describedby="org-name-hint"></div>
      </div>
      <p class="note" id="org-name-hint">Letters, digits, ".", "_" and "-"; it shares the namespace of people's names.</p>
      <fieldset class="border-top pt-3 mt-3">
        <legend class="text-bold mb-2">Visibility</legend>
        ${radio('public', 'Public', 'Anyone can see the organisation and its public repositories.', 'globe')}
        ${radio('private', 'Private', 'Only its members (and instance administrators) can see it at all.', 'lock')}
      </fieldset>
      <div class="border-top pt-3 mt-3"><button class="btn btn-primary" type="submit">Create organisation</button></div>
    </form>
  </div>`;
}

/** `/org/create` (Gitea's address): the form, and creating with the creator as owner. */
export function registerOrgNewRoutes(
  server: FastifyInstance,
  deps: OrgNewRouteDeps,
  pages: Pages,
): void {
  server.get('/org/create', async (request, reply) => {
    if (!signedInOrRedirect(request, reply)) return reply;
    return pages.send(request, reply, {
      title: TITLE,
      body: (context) => newOrgForm(context, { name: '', visibility: 'public' }),
    });
  });

  server.post('/org/create', async (request, reply) => {
    const user = signedInPoster(request, reply);
    if (!user) return reply;
    const values: OrgValues = {
      name: field(request.body, 'name', 200).trim(),
      visibility: field(request.body, 'visibility') === 'private' ? 'private' : 'public',
    };
    return formAction(
      pages,
      request,
      reply,
      async () => {
        const org = await deps.services.orgs.createOrg({ ...values, owner: user });
        return { to: accountUrl(org.handle), flash: `${org.handle} was created.` };
      },
      {
        render: (message, status) =>
          pages.send(request, reply, {
            status,
            title: TITLE,
            body: (context) => newOrgForm(context, values, message),
          }),
      },
    );
  });
}
