import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { parseCollaboratorPermission } from '../../../domain/repos/collaborator.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { askToConfirm, isConfirmed, triedToConfirm } from '../confirmation.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import type { Pages } from '../page.ts';
import { type PageRequest, RepoParams } from '../page-params.ts';
import { accountUrl, repoUrl } from '../paths.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { repoSettingsPage } from '../views/repo-settings.ts';
import { frameOf, type RepoPageDeps } from './repo-context.ts';

/** What repository settings use. */
export type RepoSettingsRouteDeps = RepoPageDeps & {
  readonly services: Pick<DomainServices, 'collaborators' | 'protectedBranches'>;
};

/**
 * Repository settings for its admins: description, visibility, default branch, collaborators,
 * protected branches and deletion. Every change goes through the domain service that owns it;
 * forms redirect back with a flash message, so they work without JavaScript.
 */
export function registerRepoSettingsRoutes(
  parent: FastifyInstance,
  deps: RepoSettingsRouteDeps,
  pages: Pages,
): void {
  const { repos, collaborators, protectedBranches, code } = deps.services;
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const params = { schema: { params: RepoParams } };

  server.get('/repos/:owner/:name/settings', params, async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    const { owner, name } = request.params;
    const visible = await repos.require(user, owner, name, 'admin');
    const { repo } = visible;
    const [refs, defaultBranch, people, protections, frame] = await Promise.all([
      code.refs(visible),
      code.defaultBranch(visible),
      collaborators.list(user, owner, name),
      protectedBranches.records(repo),
      frameOf(deps, request, visible, 'settings'),
    ]);
    reply.header('Cache-Control', 'no-store');
    return pages.send(request, reply, {
      title: `Settings · ${repo.owner.handle}/${repo.name}`,
      body: (context) =>
        repoFrame(
          context,
          frame,
          repoSettingsPage(context, {
            repo,
            defaultBranch,
            branches: refs.branches.map((branch) => branch.name),
            collaborators: people,
            protectedBranches: protections,
            federation: deps.services.federation !== undefined,
          }),
        ),
    });
  });

  /**
   * A settings form: the viewer must administer the repository (else the error page), then the
   * change runs and any domain error it raises comes back as a flash message.
   */
  const action =
    (section: string, change: (user: User, params: RepoParams, body: unknown) => Promise<string>) =>
    async (request: PageRequest<RepoParams>, reply: FastifyReply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const { repo } = await repos.require(user, owner, name, 'admin');
      const back = `${repoUrl(repo)}/settings#${section}`;
      return formAction(
        pages,
        request,
        reply,
        async () => ({ to: back, flash: await change(user, request.params, request.body) }),
        { back },
      );
    };

  server.post(
    '/repos/:owner/:name/settings',
    params,
    action('general', async (user, { owner, name }, body) => {
      const branch = field(body, 'default_branch', 300).trim();
      await repos.updateSettings(user, owner, name, {
        description: field(body, 'description', 4096),
        private: field(body, 'visibility') === 'private',
        ...(branch ? { defaultBranch: branch } : {}),
      });
      return 'Settings saved.';
    }),
  );

  server.post(
    '/repos/:owner/:name/settings/collaborators',
    params,
    action('collaborators', async (user, { owner, name }, body) => {
      const handle = field(body, 'username', 100).trim();
      const permission = parseCollaboratorPermission(field(body, 'permission', 20));
      await collaborators.put(user, owner, name, handle, permission);
      return `${handle} now has ${permission} access.`;
    }),
  );

  server.post(
    '/repos/:owner/:name/settings/collaborators/delete',
    params,
    action('collaborators', async (user, { owner, name }, body) => {
      const handle = field(body, 'username', 100).trim();
      await collaborators.remove(user, owner, name, handle);
      return `${handle} was removed.`;
    }),
  );

  server.post(
    '/repos/:owner/:name/settings/branches',
    params,
    action('branches', async (user, { owner, name }, body) => {
      const branch = field(body, 'branch', 300).trim();
      await protectedBranches.protect(user, owner, name, branch);
      return `${branch} is protected.`;
    }),
  );

  server.post(
    '/repos/:owner/:name/settings/branches/checks',
    params,
    action('branches', async (user, { owner, name }, body) => {
      const branch = field(body, 'branch', 300);
      await protectedBranches.edit(user, owner, name, branch, {
        enableStatusCheck: field(body, 'enable_status_check') === 'on',
        // One pattern a line, as Gitea's settings form takes them.
        statusCheckContexts: field(body, 'status_check_contexts', 100 * 256)
          .split(/\r?\n/)
          .map((line) => line.trim()),
      });
      return `Required checks of ${branch} saved.`;
    }),
  );

  server.post(
    '/repos/:owner/:name/settings/branches/delete',
    params,
    action('branches', async (user, { owner, name }, body) => {
      const branch = field(body, 'branch', 300);
      await protectedBranches.unprotect(user, owner, name, branch);
      return `${branch} is no longer protected.`;
    }),
  );

  server.post('/repos/:owner/:name/settings/delete', params, async (request, reply) => {
    const user = signedInPoster(request, reply);
    if (!user) return reply;
    const { owner, name } = request.params;
    const { repo } = await repos.require(user, owner, name, 'admin');
    const full = `${repo.owner.handle}/${repo.name}`;
    // As on GitHub, the full name must be typed on the confirmation page; a wrong one asks again.
    if (!isConfirmed(request.body, full)) {
      return askToConfirm(pages, request, reply, {
        title: `Delete ${full}?`,
        consequence: `This removes ${full}, its git history, pull requests, releases, webhooks and CI settings for good. It cannot be undone.`,
        action: `${repoUrl(repo)}/settings/delete`,
        button: 'Delete this repository',
        cancel: `${repoUrl(repo)}/settings#danger`,
        typeToConfirm: full,
        ...(triedToConfirm(request.body) ? { error: `Type ${full} to confirm the deletion.` } : {}),
      });
    }
    return formAction(pages, request, reply, async () => {
      await repos.delete(user, owner, name);
      await code.forget(repo);
      return { to: accountUrl(repo.owner.handle), flash: `${full} was deleted.` };
    });
  });
}
