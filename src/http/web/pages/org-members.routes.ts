import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { OrgRole, OrgView } from '../../../domain/orgs/org.service.ts';
import { parseOrgRole } from '../../../domain/orgs/org-input.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { Account, User } from '../../../domain/users/user.types.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import { OrgParams, type PageRequest } from '../page-params.ts';
import { accountUrl } from '../paths.ts';
import { signedInPoster } from '../require-user.ts';
import { orgFrame, orgUrl } from '../views/org-frame.ts';

/** What an organisation's members page uses. */
export type OrgMembersRouteDeps = {
  readonly services: Pick<DomainServices, 'orgs' | 'users'>;
};

type Member = { readonly account: Account; readonly role: OrgRole };

function hidden(context: PageContext, handle: string): Html {
  return html`<input type="hidden" name="_csrf" value="${context.csrf}"><input type="hidden" name="username" value="${handle}">`;
}

function roleSelect(id: string, selected: OrgRole): Html {
  const option = (role: OrgRole, label: string) =>
    html`<option value="${role}" ${role === selected ? html`selected` : null}>${label}</option>`;
  return html`<select class="form-select input-sm" id="${id}" name="role">${option('member', 'Member')}${option('owner', 'Owner')}</select>`;
}

function memberRow(context: PageContext, view: OrgView, member: Member, index: number): Html {
  const { handle } = member.account;
  const base = orgUrl(view.org.handle, 'members');
  const controls = view.canAdminister
    ? html`<form method="post" action="${base}/role" class="d-flex flex-items-center kiln-gap">
        ${hidden(context, handle)}
        <label class="sr-only" for="role-${index}">Role of ${handle}</label>${roleSelect(`role-${index}`, member.role)}
        <button class="btn btn-sm" type="submit">Change role</button>
      </form>
      <form method="post" action="${base}/remove">
        ${hidden(context, handle)}
        <button class="btn btn-sm btn-danger" type="submit" aria-label="Remove ${handle}">Remove</button>
      </form>`
    : html`<span class="Label">${member.role === 'owner' ? 'Owner' : 'Member'}</span>`;
  return html`<li class="Box-row d-flex flex-wrap flex-items-center kiln-gap">
    <img class="avatar" src="/assets/avatar.svg" width="20" height="20" alt="">
    <a class="flex-auto text-bold kiln-break" href="${accountUrl(handle)}">${handle}</a>
    ${view.canAdminister ? html`<span class="Label">${member.role === 'owner' ? 'Owner' : 'Member'}</span>` : null}
    ${controls}
  </li>`;
}

function addForm(context: PageContext, view: OrgView): Html {
  return html`<form method="post" action="${orgUrl(view.org.handle, 'members')}" class="Box p-3 mt-3">
    <h2 class="h4 mb-2">Add a member</h2>
    <input type="hidden" name="_csrf" value="${context.csrf}">
    <div class="d-flex flex-wrap flex-items-end kiln-gap">
      <div class="form-group my-0 flex-auto">
        <div class="form-group-header"><label for="member-handle">Username</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="member-handle" name="username" required maxlength="40" autocomplete="off"></div>
      </div>
      <div class="form-group my-0">
        <div class="form-group-header"><label for="member-role">Role</label></div>
        <div class="form-group-body">${roleSelect('member-role', 'member')}</div>
      </div>
      <button class="btn btn-primary" type="submit">Add member</button>
    </div>
    <p class="note">Owners change settings and membership; members see the organisation and its private repositories. An organisation keeps at least one owner.</p>
  </form>`;
}

/**
 * `/org/{org}/members`: who belongs to the organisation, for its members and administrators
 * (to anyone else, as missing as the organisation's member list is on its page); owners add
 * people by handle, change roles (owner or member, as the domain has them) and remove people.
 * Every form goes through OrgService, which keeps the last owner.
 */
export function registerOrgMembersRoutes(
  parent: FastifyInstance,
  deps: OrgMembersRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { orgs, users } = deps.services;
  const params = { schema: { params: OrgParams } };

  server.get('/org/:org/members', params, async (request, reply) => {
    const view = await orgs.view(viewerUser(request.viewer), request.params.org);
    // Who belongs is the members' business: to anyone else the page is missing.
    if (view.role === undefined && !view.canAdminister) throw new NotFound('no such page');
    const rows = await orgs.listMembers(view.org);
    const accounts = await users.findManyByIds(rows.map((row) => row.userId));
    const members = rows.flatMap((row) => {
      const account = accounts.get(row.userId);
      return account ? [{ account, role: row.role }] : [];
    });
    reply.header('Cache-Control', 'no-store');
    return pages.send(request, reply, {
      title: `Members · ${view.org.handle}`,
      body: (context) =>
        orgFrame(
          view,
          'members',
          html`<ul class="Box list-style-none" aria-label="Members">${members.map((member, index) => memberRow(context, view, member, index))}</ul>
          ${view.canAdminister ? addForm(context, view) : null}`,
        ),
    });
  });

  /** A members form: an owner, the CSRF token, then the change; refusals come back as a flash. */
  const action =
    (change: (user: User, org: string, body: unknown) => Promise<string>) =>
    async (request: PageRequest<OrgParams>, reply: FastifyReply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { org } = await orgs.administered(user, request.params.org);
      const back = orgUrl(org.handle, 'members');
      return formAction(
        pages,
        request,
        reply,
        async () => ({ to: back, flash: await change(user, org.handle, request.body) }),
        { answers: ['invalid', 'conflict', 'not_found'], back },
      );
    };

  /** Adding someone and changing a role both name a person and a role, and say so the same way. */
  const withRole = (url: string, change: typeof orgs.setRole) =>
    server.post(
      url,
      params,
      action(async (user, org, body) => {
        const role = parseOrgRole(field(body, 'role', 20));
        const person = await change(user, org, field(body, 'username', 100), role);
        return `${person.handle} is now ${role === 'owner' ? 'an owner' : 'a member'} of ${org}.`;
      }),
    );
  withRole('/org/:org/members', (...args) => orgs.addMemberByHandle(...args));
  withRole('/org/:org/members/role', (...args) => orgs.setRole(...args));

  server.post(
    '/org/:org/members/remove',
    params,
    action(async (user, org, body) => {
      const person = await orgs.removeMember(user, org, field(body, 'username', 100));
      return `${person.handle} was removed from ${org}.`;
    }),
  );
}
