import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Invalid } from '../../../domain/errors.ts';
import type { OrgView } from '../../../domain/orgs/org.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { OrgParams } from '../page-params.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';
import { orgFrame, orgUrl } from '../views/org-frame.ts';

/** What an organisation's settings use. */
export type OrgSettingsRouteDeps = {
  readonly services: Pick<DomainServices, 'orgs'>;
};

function settingsPage(context: PageContext, view: OrgView): Html {
  const { org, settings } = view;
  const base = orgUrl(org.handle, 'settings');
  const radio = (value: 'public' | 'private', label: string) =>
    html`<div class="form-checkbox my-1"><label><input type="radio" name="visibility" value="${value}" ${settings.visibility === value ? html`checked` : null}> ${label}</label></div>`;
  return html`<form method="post" action="${base}" class="Box p-3 mb-4" id="general">
      <h2 class="h4 mb-2">General</h2>
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group">
        <div class="form-group-header"><label for="org-full-name">Full name</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="org-full-name" name="full_name" maxlength="100" value="${org.fullName}"></div>
      </div>
      <div class="form-group">
        <div class="form-group-header"><label for="org-description">Description</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="org-description" name="description" maxlength="255" value="${org.description}"></div>
      </div>
      <div class="form-group">
        <div class="form-group-header"><label for="org-website">Website</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="org-website" name="website" type="url" maxlength="255" value="${settings.website}" placeholder="https://example.org"></div>
      </div>
      <fieldset class="mt-3">
        <legend class="text-bold mb-1">Visibility</legend>
        ${radio('public', 'Public: anyone can see the organisation')}
        ${radio('private', 'Private: only members and administrators can see it')}
      </fieldset>
      <button class="btn btn-primary mt-3" type="submit">Save settings</button>
    </form>
    <form method="post" action="${base}/delete" class="Box color-border-danger p-3" id="danger">
      <h2 class="h4 mb-2 color-fg-danger">Delete this organisation</h2>
      <p class="mb-2">Deleting is permanent. An organisation that still owns repositories cannot be deleted; delete or move them first.</p>
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group">
        <div class="form-group-header"><label for="org-confirm">Type <strong>${org.handle}</strong> to confirm</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="org-confirm" name="confirm" required autocomplete="off"></div>
      </div>
      <button class="btn btn-danger" type="submit">Delete organisation</button>
    </form>`;
}

/**
 * `/org/{org}/settings`: full name, description, website and visibility, and deletion with the
 * organisation's name typed as confirmation. Owners and administrators only: OrgService answers
 * Forbidden to other members and NotFound to those who may not see the organisation.
 */
export function registerOrgSettingsRoutes(
  parent: FastifyInstance,
  deps: OrgSettingsRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { orgs } = deps.services;
  const params = { schema: { params: OrgParams } };

  server.get('/org/:org/settings', params, async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    const view = await orgs.administered(user, request.params.org);
    reply.header('Cache-Control', 'no-store');
    return pages.send(request, reply, {
      title: `Settings · ${view.org.handle}`,
      body: (context) => orgFrame(view, 'settings', settingsPage(context, view)),
    });
  });

  server.post('/org/:org/settings', params, async (request, reply) => {
    const user = signedInPoster(request, reply);
    if (!user) return reply;
    const { org } = await orgs.administered(user, request.params.org);
    const back = `${orgUrl(org.handle, 'settings')}#general`;
    const body = request.body;
    return formAction(
      pages,
      request,
      reply,
      async () => {
        await orgs.updateSettings(user, org.handle, {
          fullName: field(body, 'full_name', 200),
          description: field(body, 'description', 1000),
          website: field(body, 'website', 1000),
          visibility: field(body, 'visibility', 20),
        });
        return { to: back, flash: 'Settings saved.' };
      },
      { answers: ['invalid'], back },
    );
  });

  server.post('/org/:org/settings/delete', params, async (request, reply) => {
    const user = signedInPoster(request, reply);
    if (!user) return reply;
    const { org } = await orgs.administered(user, request.params.org);
    return formAction(
      pages,
      request,
      reply,
      async () => {
        if (field(request.body, 'confirm', 200).trim() !== org.handle) {
          throw new Invalid(`Type ${org.handle} to confirm the deletion.`);
        }
        await orgs.deleteOrg(user, org.handle);
        return { to: '/', flash: `${org.handle} was deleted.` };
      },
      { answers: ['invalid', 'conflict'], back: `${orgUrl(org.handle, 'settings')}#danger` },
    );
  });
}
