import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { foldId } from '../../../lib/ids.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { unlessConfirmed } from '../confirmation.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import type { Pages } from '../page.ts';
import { IdParams, RepoIdParams, RepoParams } from '../page-params.ts';
import { signedInOrRedirect, signedInPoster } from '../require-user.ts';
import { settingsFrame } from '../views/settings-nav.ts';
import { type SshKeysView, sshKeysPage } from '../views/ssh-keys.ts';

/** What the SSH key pages use. */
export type SshKeyPageDeps = {
  readonly services: Pick<DomainServices, 'sshKeys'>;
};

const USER_INTRO =
  'Keys that let git over SSH act as you. Add the public half of a key: the contents of ~/.ssh/id_ed25519.pub.';
const DEPLOY_INTRO =
  'Keys that open this repository alone over SSH, for a build or a deployment: read-only unless allowed to push.';

/**
 * `/settings/keys` (a person's SSH keys) and `/repos/{owner}/{name}/settings/keys` (a repository's
 * deploy keys): list, add, remove. Removing asks for confirmation, without JavaScript too.
 */
export function registerSshKeyPages(
  parent: FastifyInstance,
  deps: SshKeyPageDeps,
  pages: Pages,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { sshKeys } = deps.services;
  const show = (request: FastifyRequest, reply: FastifyReply, view: SshKeysView, status = 200) => {
    reply.header('Cache-Control', 'no-store');
    const body = sshKeysPage;
    return pages.send(request, reply, {
      status,
      title: view.heading,
      body: view.deploy
        ? (context) => body(context, view)
        : (context) => settingsFrame('/settings/keys', body(context, view)),
    });
  };
  const userView = async (user: User, error?: string): Promise<SshKeysView> => ({
    heading: 'SSH keys',
    intro: USER_INTRO,
    keys: await sshKeys.listUserKeys(user),
    action: '/settings/keys',
    deploy: false,
    error,
  });
  const newKey = (request: FastifyRequest) => ({
    title: field(request.body, 'title', 300),
    key: field(request.body, 'key', 32 * 1024),
    readOnly: field(request.body, 'write', 10) !== 'yes',
  });

  server.get('/settings/keys', async (request, reply) => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return reply;
    return show(request, reply, await userView(user));
  });

  server.post('/settings/keys', async (request, reply) => {
    const user = signedInPoster(request, reply);
    if (!user) return reply;
    return formAction(
      pages,
      request,
      reply,
      async () => {
        await sshKeys.addUserKey(user, newKey(request));
        return { to: '/settings/keys', flash: 'Key added.' };
      },
      {
        render: async (error, status) => show(request, reply, await userView(user, error), status),
      },
    );
  });

  server.post(
    '/settings/keys/:id/delete',
    { schema: { params: IdParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const key = (await sshKeys.listUserKeys(user)).find((k) => k.id === request.params.id);
      if (!key) throw new NotFound('public key does not exist');
      const asked = unlessConfirmed(pages, request, reply, () => ({
        title: `Remove the key ${key.title}?`,
        consequence: 'Git over SSH with this key stops working at once.',
        action: `/settings/keys/${key.id}/delete`,
        button: 'Remove key',
        cancel: '/settings/keys',
      }));
      if (asked) return asked;
      return formAction(pages, request, reply, async () => {
        await sshKeys.deleteUserKey(user, foldId(key.id));
        return { to: '/settings/keys', flash: 'Key removed.' };
      });
    },
  );

  const deployView = async (
    viewer: User | undefined,
    owner: string,
    name: string,
    error?: string,
  ): Promise<SshKeysView> => {
    const { repo, keys } = await sshKeys.listDeployKeys(viewer, owner, name);
    return {
      heading: `Deploy keys of ${repo.owner.handle}/${repo.name}`,
      intro: DEPLOY_INTRO,
      keys,
      action: `/repos/${repo.owner.handle}/${repo.name}/settings/keys`,
      deploy: true,
      error,
    };
  };

  server.get(
    '/repos/:owner/:name/settings/keys',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      const { owner, name } = request.params;
      return show(request, reply, await deployView(viewerUser(request.viewer), owner, name));
    },
  );

  server.post(
    '/repos/:owner/:name/settings/keys',
    { schema: { params: RepoParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name } = request.params;
      const view = await deployView(user, owner, name);
      return formAction(
        pages,
        request,
        reply,
        async () => {
          await sshKeys.addDeployKey(user, owner, name, newKey(request));
          return { to: view.action, flash: 'Deploy key added.' };
        },
        {
          render: async (error, status) =>
            show(request, reply, await deployView(user, owner, name, error), status),
        },
      );
    },
  );

  server.post(
    '/repos/:owner/:name/settings/keys/:id/delete',
    { schema: { params: RepoIdParams } },
    async (request, reply) => {
      const user = signedInPoster(request, reply);
      if (!user) return reply;
      const { owner, name, id } = request.params;
      const view = await deployView(user, owner, name);
      const key = view.keys.find((k) => k.id === id);
      if (!key) throw new NotFound('deploy key does not exist');
      const asked = unlessConfirmed(pages, request, reply, () => ({
        title: `Remove the deploy key ${key.title}?`,
        consequence: 'Git over SSH with this key stops working at once.',
        action: `${view.action}/${key.id}/delete`,
        button: 'Remove key',
        cancel: view.action,
      }));
      if (asked) return asked;
      return formAction(pages, request, reply, async () => {
        await sshKeys.deleteDeployKey(user, owner, name, foldId(key.id));
        return { to: view.action, flash: 'Deploy key removed.' };
      });
    },
  );
}
