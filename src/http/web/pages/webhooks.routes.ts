import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../../config/config.ts';
import { NotFound } from '../../../domain/errors.ts';
import { mayAdministerRepo } from '../../../domain/repos/repo.policy.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { Type } from '../../../present/schemas/type.ts';
import { viewerUser } from '../../auth/viewer.ts';
import type { Pages } from '../page.ts';
import { signedInOrRedirect } from '../require-user.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { frameOf, type RepoPageDeps } from './repo-context.ts';
import { pathParam, registerHookPages } from './webhook-pages.ts';

/** What the webhook settings pages use. */
export type WebhookSettingsRouteDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'repos' | 'webhooks' | 'admins'>;
  readonly config: Pick<Config, 'secretKey'>;
};

const segment = encodeURIComponent;

/**
 * The webhook pages of the three places hooks live, one set of pages over each:
 * - `/repos/{owner}/{name}/settings/hooks`: the repository's admins;
 * - `/org/{org}/settings/hooks` (Gitea's address): the organisation's owners;
 * - `/admin/hooks`: the instance admins, for the system hooks that hear every repository.
 * To anyone else they do not exist (404, like every settings and admin page); anonymous visitors
 * of the repository and organisation pages sign in first, while the admin area answers them 404
 * as it does everywhere.
 */
export function registerWebhookSettingsRoutes(
  server: FastifyInstance,
  deps: WebhookSettingsRouteDeps,
  pages: Pages,
): void {
  const { repos, webhooks, admins } = deps.services;
  const secretsEnabled = deps.config.secretKey !== undefined;
  const noStore = (reply: FastifyReply) => reply.header('Cache-Control', 'no-store');

  registerHookPages(server, pages, webhooks, {
    base: '/repos/:owner/:name/settings/hooks',
    params: { owner: Type.String(), name: Type.String() },
    async find(request, reply) {
      const user = signedInOrRedirect(request, reply);
      if (!user) return undefined;
      const visible = await repos.get(
        user,
        pathParam(request, 'owner'),
        pathParam(request, 'name'),
      );
      const { repo, access } = visible;
      // Readers and writers see no settings at all: 404, not 403, as for the CI settings.
      if (!mayAdministerRepo(access)) throw new NotFound('no such page');
      // The repository's header and tabs, as on its other settings pages.
      const frame = await frameOf(deps, request, visible, 'settings');
      noStore(reply);
      const owner = repo.owner.handle;
      const home = `/repos/${segment(owner)}/${segment(repo.name)}`;
      return {
        user,
        hooks: { kind: 'repo', id: repo.id },
        place: {
          trail: [
            { label: owner, href: `/${segment(owner)}` },
            { label: repo.name, href: home },
            { label: 'settings', href: `${home}/settings` },
          ],
          label: `${owner}/${repo.name}`,
          scope: 'this repository',
          path: `${home}/settings/hooks`,
          testable: true,
          secretsEnabled,
        },
        sendTest: (wireId) => webhooks.sendTest(user, owner, repo.name, wireId),
        frame: (context, content) => repoFrame(context, frame, content),
      };
    },
    testable: true,
  });

  registerHookPages(server, pages, webhooks, {
    base: '/org/:org/settings/hooks',
    params: { org: Type.String() },
    async find(request, reply) {
      const user = signedInOrRedirect(request, reply);
      if (!user) return undefined;
      const org = pathParam(request, 'org');
      const hooks = await webhooks.orgSettingsOwner(user, org);
      noStore(reply);
      return {
        user,
        hooks,
        place: {
          trail: [{ label: org, href: `/${segment(org)}` }],
          label: org,
          scope: `any repository of ${org}`,
          path: `/org/${segment(org)}/settings/hooks`,
          testable: false,
          secretsEnabled,
        },
      };
    },
    testable: false,
  });

  registerHookPages(server, pages, webhooks, {
    base: '/admin/hooks',
    params: {},
    async find(request: FastifyRequest, reply: FastifyReply) {
      const user = viewerUser(request.viewer);
      if (user === undefined || !admins.isAdmin(user)) throw new NotFound('no such page');
      noStore(reply);
      return {
        user,
        hooks: webhooks.systemOwner(user),
        place: {
          trail: [{ label: 'Admin', href: '/admin' }],
          label: 'Admin',
          scope: 'any repository of this instance (system hooks)',
          path: '/admin/hooks',
          testable: false,
          secretsEnabled,
        },
      };
    },
    testable: false,
  });
}
