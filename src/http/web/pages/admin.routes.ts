import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { KILN_VERSION } from '../../../version.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { assertCsrf } from '../csrf.ts';
import { formAction } from '../form-action.ts';
import { formValue } from '../forms.ts';
import type { Html } from '../html.ts';
import type { Pages } from '../page.ts';
import { HandleParams } from '../page-params.ts';
import { type AdminPage, adminFrame } from '../views/admin-frame.ts';
import { pageOf, pager } from '../views/paging.ts';
import { overviewPage, reposPage, usersPage } from './admin-people.view.ts';

/** What the admin overview, people and repository pages use. */
export type AdminRouteDeps = {
  readonly services: Pick<DomainServices, 'siteAdmin'>;
};

const PER_PAGE = 30;

function queryOf(request: FastifyRequest): string {
  const q = formValue(request.query, 'q');
  return typeof q === 'string' ? q.slice(0, 100) : '';
}

/** `base?q=…&page=n`, keeping the search. */
function listUrl(base: string, query: string, page: number): string {
  const params = new URLSearchParams();
  if (query) params.set('q', query);
  if (page > 1) params.set('page', String(page));
  const search = params.toString();
  return search ? `${base}?${search}` : base;
}

/**
 * `/admin`, `/admin/users` and `/admin/repos`: instance administrators only. SiteAdminService
 * answers NotFound to everyone else before anything is read, so the area is as missing to them
 * as any private thing. Lists are paged and searchable; changes are CSRF-checked forms that
 * come back to the list with a message.
 */
export function registerAdminPages(
  parent: FastifyInstance,
  deps: AdminRouteDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { siteAdmin } = deps.services;

  const send = (
    request: FastifyRequest,
    reply: FastifyReply,
    page: AdminPage,
    title: string,
    body: Parameters<Pages['send']>[2]['body'],
  ) => {
    // Admin pages list people and their addresses: never cache them.
    reply.header('Cache-Control', 'no-store');
    return pages.send(request, reply, {
      title: `${title} · Admin`,
      body: (context) => adminFrame(page, typeof body === 'function' ? body(context) : body),
    });
  };

  server.get('/admin', async (request, reply) => {
    const counts = await siteAdmin.counts(viewerUser(request.viewer));
    const body = overviewPage(counts, {
      version: KILN_VERSION,
      uptimeSeconds: Math.floor(process.uptime()),
    });
    return send(request, reply, 'overview', 'Overview', body);
  });

  server.get('/admin/users', async (request, reply) => {
    const query = queryOf(request);
    const page = pageOf(request.query);
    const offset = (page - 1) * PER_PAGE;
    const list = await siteAdmin.listPeople(viewerUser(request.viewer), query, {
      limit: PER_PAGE,
      offset,
    });
    const more = pager(page, offset + list.items.length < list.total, (n) =>
      listUrl('/admin/users', query, n),
    );
    return send(request, reply, 'users', 'Users', (context) =>
      usersPage(context, { ...list, query }, more),
    );
  });

  server.get('/admin/repos', async (request, reply) => {
    const query = queryOf(request);
    const page = pageOf(request.query);
    const offset = (page - 1) * PER_PAGE;
    const list = await siteAdmin.listRepos(viewerUser(request.viewer), query, {
      limit: PER_PAGE,
      offset,
    });
    const more: Html | null = pager(page, offset + list.items.length < list.total, (n) =>
      listUrl('/admin/repos', query, n),
    );
    return send(request, reply, 'repos', 'Repositories', reposPage({ ...list, query }, more));
  });

  /** A form about one person: an administrator first (NotFound otherwise), then the CSRF token. */
  const personAction = (url: string, change: (admin: User, handle: string) => Promise<string>) =>
    server.post(url, { schema: { params: HandleParams } }, async (request, reply) => {
      const admin = siteAdmin.requireAdmin(viewerUser(request.viewer));
      assertCsrf(request);
      return formAction(
        pages,
        request,
        reply,
        async () => ({ to: '/admin/users', flash: await change(admin, request.params.handle) }),
        { answers: ['invalid'], back: '/admin/users' },
      );
    });

  personAction('/admin/users/:handle/disable', async (admin, handle) => {
    const person = await siteAdmin.setDisabled(admin, handle, true);
    return `${person.handle} is disabled: they cannot sign in, and their sessions and tokens no longer work.`;
  });
  personAction('/admin/users/:handle/enable', async (admin, handle) => {
    const person = await siteAdmin.setDisabled(admin, handle, false);
    return `${person.handle} is enabled again.`;
  });
  personAction('/admin/users/:handle/make-admin', async (admin, handle) => {
    const person = await siteAdmin.setAdmin(admin, handle, true);
    return `${person.handle} is now an administrator.`;
  });
  personAction('/admin/users/:handle/revoke-admin', async (admin, handle) => {
    const person = await siteAdmin.setAdmin(admin, handle, false);
    return `${person.handle} is no longer an administrator.`;
  });
}
