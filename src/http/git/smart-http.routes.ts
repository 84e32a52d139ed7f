import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Forbidden } from '../../domain/errors.ts';
import { pushHintLines } from '../../domain/pulls/push-hints.ts';
import { receivePush } from '../../domain/repos/push-reception.ts';
import type { DomainServices } from '../../domain/services.ts';
import type { User } from '../../domain/users/user.types.ts';
import { type GitService, isGitService } from '../../git/transport.ts';
import { viewerUser } from '../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../base-url.ts';
import { gitErrorHandler } from '../errors/git-errors.ts';
import { gitAccess } from './git-access.ts';
import { prepareGitEdge } from './git-edge.ts';
import {
  assertServiceRequest,
  gitProtocolHeader,
  isGzip,
  noCache,
  sendAdvertisement,
  serveUploadPack,
  serviceInput,
} from './upload-pack.ts';

type RepoParams = { owner: string; name: string };

/** What smart HTTP uses: credentials, repositories and their protected refs, the push use case. */
export type SmartHttpDeps = {
  readonly services: Pick<
    DomainServices,
    'tokens' | 'ciTaskTokens' | 'repos' | 'protectedBranches' | 'pushHandling' | 'pullSuggestions'
  >;
  /** For the addresses in the lines a push prints. */
  readonly config: BaseUrlConfig;
};

/**
 * Smart HTTP at `/{owner}/{name}.git/…` (and without `.git`): authentication, access rules,
 * content types and cache headers here; the protocol itself streams through src/git/transport.
 * Request bodies are never parsed: they go to git as they arrive, but for git's four-byte probe,
 * which is answered here.
 */
export async function smartHttpPlugin(server: FastifyInstance, deps: SmartHttpDeps): Promise<void> {
  const { services } = deps;
  prepareGitEdge(server, services, gitErrorHandler);

  server.get<{ Params: RepoParams; Querystring: { service?: string } }>(
    '/:owner/:name/info/refs',
    async (request, reply) => {
      const service = request.query.service;
      if (!isGitService(service)) {
        throw new Forbidden('Dumb HTTP is not supported; use a git client that speaks smart HTTP.');
      }
      const { repo } = await gitAccess(
        services.repos,
        request,
        request.params.owner,
        request.params.name,
        service === 'git-receive-pack',
      );
      return sendAdvertisement(request, reply, services.repos.handle(repo), service);
    },
  );

  const post = (service: GitService) =>
    server.post<{ Params: RepoParams; Body: Readable }>(
      `/:owner/:name/${service}`,
      async (request, reply) => {
        assertServiceRequest(request, service);
        const write = service === 'git-receive-pack';
        const { repo } = await gitAccess(
          services.repos,
          request,
          request.params.owner,
          request.params.name,
          write,
        );
        const handle = services.repos.handle(repo);
        if (!write) return serveUploadPack(request, reply, handle);
        const options = { gitProtocol: gitProtocolHeader(request), gzip: isGzip(request) };
        const type = 'application/x-git-receive-pack-result';
        const { probe, input } = await serviceInput(request);
        if (probe) return noCache(reply).type(type).send(Buffer.alloc(0));
        noCache(reply).type(type);

        const pusher = viewerUser(request.viewer) as User;
        const base = baseUrlOf(request, deps.config);
        return reply.send(
          await receivePush(services, {
            repo,
            pusher,
            input,
            transport: options,
            // Gitea's lines after a push of a branch: where to open its pull, or the one open.
            hints: (suggestions) => pushHintLines(suggestions, base),
            log: {
              warn: (error, message) => request.log.warn({ err: error }, message),
              error: (error, message) => request.log.error({ err: error }, message),
            },
          }),
        );
      },
    );
  post('git-upload-pack');
  post('git-receive-pack');

  const dumb = async () => {
    throw new Forbidden('Dumb HTTP is not supported.');
  };
  server.get('/:owner/:name/HEAD', dumb);
  server.get('/:owner/:name/objects/*', dumb);
}
