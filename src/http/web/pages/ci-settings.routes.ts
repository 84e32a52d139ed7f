import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../../config/config.ts';
import type { CiSettingKind, RepoCiAccess } from '../../../domain/ci/ci-names.ts';
import { NotFound } from '../../../domain/errors.ts';
import { mayAdministerRepo } from '../../../domain/repos/repo.policy.ts';
import type { VisibleRepo } from '../../../domain/repos/repo.types.ts';
import type { RunnerActor } from '../../../domain/runners/runner.policy.ts';
import type { RunnerScope } from '../../../domain/runners/runner.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { baseUrlOf } from '../../base-url.ts';
import { type Confirmation, unlessConfirmed } from '../confirmation.ts';
import { assertCsrf } from '../csrf.ts';
import { formAction } from '../form-action.ts';
import { field } from '../forms.ts';
import type { PageContext } from '../layout.ts';
import type { Pages } from '../page.ts';
import {
  type PageRequest,
  RepoIdParams,
  RepoParams,
  SecretParams,
  VariableParams,
} from '../page-params.ts';
import { signedInOrRedirect } from '../require-user.ts';
import { repoFrame } from '../views/repo-frame.ts';
import { type FreshToken, RUNNER_DELETION, TOKEN_DELETION } from './admin-runner-tables.view.ts';
import { ciSettingsPage } from './ci-settings.view.ts';
import { frameOf, type RepoPageDeps } from './repo-context.ts';

/** What the CI settings of a repository use. */
export type CiSettingsRouteDeps = RepoPageDeps & {
  readonly services: Pick<
    DomainServices,
    'runnerAdmin' | 'ciSecrets' | 'ciVariables' | 'ciCaches' | 'repos'
  >;
  readonly config: Pick<Config, 'baseUrl' | 'http'>;
};

const BASE = '/repos/:owner/:name/settings/ci';
const TITLE = 'CI settings';
/** Cache entries the page lists; the REST list pages through the rest. */
const CACHE_PAGE = { limit: 100, offset: 0 };
const SETTING_LABELS = { secret: 'Secret', variable: 'Variable' } as const;

/** Everything one request to the page works with, after the access check. */
type Settings = {
  readonly owner: string;
  readonly name: string;
  readonly path: string;
  readonly user: User;
  readonly actor: RunnerActor;
  readonly scope: RunnerScope;
  readonly access: RepoCiAccess;
  readonly visible: VisibleRepo;
};

/**
 * A repository's CI settings: its registration tokens and runners, secrets and variables. Only
 * the repository's admins see it; to everyone else it does not exist (404, as Gitea does for
 * settings), and anonymous visitors are sent to sign in first.
 */
export function registerCiSettingsRoutes(
  parent: FastifyInstance,
  deps: CiSettingsRouteDeps,
  pages: Pages,
): void {
  const { runnerAdmin, ciSecrets, ciVariables, ciCaches, repos } = deps.services;
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const grants = { isRepoAdmin: true } as const;
  const repoParams = { schema: { params: RepoParams } };

  const settingsOf = async (
    request: PageRequest<RepoParams>,
    reply: FastifyReply,
  ): Promise<Settings | undefined> => {
    const user = signedInOrRedirect(request, reply);
    if (!user) return undefined;
    const { params } = request;
    const visible = await repos.get(user, params.owner, params.name);
    const { repo, access } = visible;
    if (!mayAdministerRepo(access)) throw new NotFound('no such page');
    reply.header('Cache-Control', 'no-store');
    const owner = repo.owner.handle;
    return {
      owner,
      name: repo.name,
      path: `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo.name)}/settings/ci`,
      user,
      actor: { kind: 'user', user },
      scope: { kind: 'repository', repoId: repo.id },
      access: { repoId: repo.id, isRepoAdmin: true },
      visible,
    };
  };

  const render = async (
    request: FastifyRequest,
    reply: FastifyReply,
    settings: Settings,
    extra: { status?: number; fresh?: FreshToken; error?: string } = {},
  ) => {
    const [runners, tokens, secrets, variables, caches, frame] = await Promise.all([
      runnerAdmin.listRunners(settings.actor, settings.scope, grants),
      runnerAdmin.listTokens(settings.actor, settings.scope, grants),
      ciSecrets.list(settings.access),
      ciVariables.list(settings.access),
      ciCaches.list(settings.user, settings.owner, settings.name, {}, CACHE_PAGE),
      // The repository's header and tabs, as on its other settings pages.
      frameOf(deps, request, settings.visible, 'settings'),
    ]);
    const data = {
      ...settings,
      runners,
      tokens,
      secrets,
      variables,
      caches: caches.entries,
      cacheCount: caches.total,
      secretsEnabled: ciSecrets.enabled,
      fresh: extra.fresh,
      error: extra.error,
    };
    return pages.send(request, reply, {
      status: extra.status ?? 200,
      title: `${TITLE} · ${settings.owner}/${settings.name}`,
      body: (context: PageContext) => repoFrame(context, frame, ciSettingsPage(context, data)),
    });
  };

  /** Runs a form action, then back to the page with a message; input errors re-render it. */
  const act = <P extends RepoParams>(
    work: (request: PageRequest<P>, settings: Settings) => Promise<string>,
    confirmation?: Pick<Confirmation, 'title' | 'consequence' | 'button'>,
  ) => {
    return async (request: PageRequest<P>, reply: FastifyReply) => {
      const settings = await settingsOf(request, reply);
      if (!settings) return reply;
      assertCsrf(request);
      // A delete runs only once confirmed; the page asks when the form did not.
      const asked =
        confirmation &&
        unlessConfirmed(pages, request, reply, () => ({
          ...confirmation,
          action: request.url,
          cancel: settings.path,
        }));
      if (asked) return asked;
      return formAction(
        pages,
        request,
        reply,
        async () => ({ to: settings.path, flash: await work(request, settings) }),
        {
          answers: ['invalid'],
          render: (error, status) => render(request, reply, settings, { status, error }),
        },
      );
    };
  };

  /** Deleting a secret or a variable: the same question first, the same answer after. */
  const deletion = <P extends RepoParams>(
    kind: CiSettingKind,
    remove: (request: PageRequest<P>, settings: Settings) => Promise<void>,
  ) =>
    act<P>(
      async (request, settings) => {
        await remove(request, settings);
        return `${SETTING_LABELS[kind]} deleted.`;
      },
      {
        title: `Delete this ${kind}?`,
        consequence: 'Workflows that read it get an empty value from their next run on.',
        button: `Delete ${kind}`,
      },
    );

  server.get(BASE, repoParams, async (request, reply) => {
    const settings = await settingsOf(request, reply);
    if (!settings) return reply;
    return render(request, reply, settings);
  });

  server.post(`${BASE}/tokens`, repoParams, async (request, reply) => {
    const settings = await settingsOf(request, reply);
    if (!settings) return reply;
    assertCsrf(request);
    const { token } = await runnerAdmin.createToken(settings.actor, settings.scope, grants);
    const fresh = { token, baseUrl: baseUrlOf(request, deps.config) };
    return render(request, reply, settings, { status: 201, fresh });
  });

  server.post(
    `${BASE}/tokens/:id/delete`,
    { schema: { params: RepoIdParams } },
    act(async (request, settings) => {
      await runnerAdmin.deleteToken(settings.actor, settings.scope, request.params.id, grants);
      return TOKEN_DELETION.done;
    }, TOKEN_DELETION.confirmation),
  );

  server.post(
    `${BASE}/runners/:id/delete`,
    { schema: { params: RepoIdParams } },
    act(async (request, settings) => {
      await runnerAdmin.deleteRunner(settings.actor, settings.scope, request.params.id, grants);
      return RUNNER_DELETION.done;
    }, RUNNER_DELETION.confirmation),
  );

  server.post(
    `${BASE}/secrets`,
    { schema: { params: RepoParams } },
    act(async (request, settings) => {
      const body = request.body;
      const saved = await ciSecrets.put(
        settings.access,
        field(body, 'name', 300),
        field(body, 'value'),
      );
      return `Secret ${saved.name} saved.`;
    }),
  );

  server.post(
    `${BASE}/secrets/:secret/delete`,
    { schema: { params: SecretParams } },
    deletion('secret', (request, settings) =>
      ciSecrets.delete(settings.access, request.params.secret),
    ),
  );

  server.post(
    `${BASE}/variables`,
    { schema: { params: RepoParams } },
    act(async (request, settings) => {
      const body = request.body;
      const saved = await ciVariables.put(
        settings.access,
        field(body, 'name', 300),
        field(body, 'value', 100_000),
      );
      return `Variable ${saved.name} saved.`;
    }),
  );

  server.post(
    `${BASE}/caches/:id/delete`,
    { schema: { params: RepoIdParams } },
    act(async (request, settings) => {
      const id = Number(request.params.id);
      if (!Number.isSafeInteger(id) || id < 1) throw new NotFound('no such cache');
      await ciCaches.deleteById(settings.user, settings.owner, settings.name, id);
      return 'Cache deleted.';
    }),
  );

  server.post(
    `${BASE}/variables/:variable/delete`,
    { schema: { params: VariableParams } },
    deletion('variable', (request, settings) =>
      ciVariables.delete(settings.access, request.params.variable),
    ),
  );
}
