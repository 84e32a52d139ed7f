import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { AdminPolicy } from '../../domain/admin/admin.policy.ts';
import { NotFound } from '../../domain/errors.ts';
import type { RepoService } from '../../domain/repos/repo.service.ts';
import type { VisibleRepo } from '../../domain/repos/repo.types.ts';
import { gitErrorHandler } from '../errors/git-errors.ts';
import { refuseNulInAddress } from '../plugins/nul-guard.ts';
import { repoNameOf } from './git-access.ts';
import { registerUnreadBodyHandling } from './unread-body.ts';
import { assertServiceRequest, sendAdvertisement, serveUploadPack } from './upload-pack.ts';

type RepoParams = { owner: string; name: string };

/** What the actions source reads: public repositories, and who the action owners are. */
export type ActionsSourceDeps = {
  readonly services: {
    readonly repos: Pick<RepoService, 'get' | 'handle'>;
    readonly admins: Pick<AdminPolicy, 'isActionOwner'>;
  };
};

/**
 * The repository behind `/-/actions/{owner}/{name}` when the actions source serves it: an
 * action owner's repository that anyone may read. Invariant: this path serves nothing else —
 * not an ordinary account's repository, not a private one, whoever asks (credentials are not
 * read here) — so a host-less `uses:` resolves only to code that administrators published.
 */
async function actionRepo(deps: ActionsSourceDeps, params: RepoParams): Promise<VisibleRepo> {
  if (!deps.services.admins.isActionOwner(params.owner)) throw new NotFound('not found');
  return deps.services.repos.get(undefined, params.owner, repoNameOf(params.name));
}

/**
 * The instance's actions source at `/-/actions/{owner}/{name}[.git]`: git smart HTTP for
 * fetching only (`info/refs?service=git-upload-pack` and `git-upload-pack`, protocol v2 as the
 * ordinary transport), where runners fetch `uses: owner/repo@ref` while
 * `service.ci.actions-url` is unset. Everything else here, pushes included, is 404.
 */
export async function actionsSourcePlugin(
  server: FastifyInstance,
  deps: ActionsSourceDeps,
): Promise<void> {
  server.setErrorHandler(gitErrorHandler);
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  registerUnreadBodyHandling(server);
  server.addHook('preValidation', refuseNulInAddress);
  server.setNotFoundHandler((_request, reply) =>
    reply.status(404).type('text/plain; charset=utf-8').send('Repository not found.\n'),
  );

  server.get<{ Params: RepoParams; Querystring: { service?: string } }>(
    '/:owner/:name/info/refs',
    async (request, reply) => {
      const service = request.query.service;
      if (service !== 'git-upload-pack') throw new NotFound('not found');
      const { repo } = await actionRepo(deps, request.params);
      return sendAdvertisement(request, reply, deps.services.repos.handle(repo), service);
    },
  );

  server.post<{ Params: RepoParams; Body: Readable }>(
    '/:owner/:name/git-upload-pack',
    async (request, reply) => {
      const { repo } = await actionRepo(deps, request.params);
      assertServiceRequest(request, 'git-upload-pack');
      return serveUploadPack(request, reply, deps.services.repos.handle(repo));
    },
  );
}
