import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ArchiveTarget } from '../../../domain/code/archive.service.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { parseArchiveTarget } from '../../git/archive.routes.ts';
import { BadRequest } from './bad-request.ts';
import { repoParamsWith } from './params.ts';

const Params = repoParamsWith({
  '*': Type.String({ maxLength: 300 }),
});

/** Streams one archive as the answer; the same gate and stream as the web download. */
export type ArchiveSender = (
  reply: FastifyReply,
  repo: Repository,
  target: ArchiveTarget,
) => Promise<FastifyReply>;

/** What the route uses: repositories, and the sender of archives. */
export type ArchiveRouteDeps = {
  readonly services: Pick<DomainServices, 'repos'>;
  readonly sendArchive: ArchiveSender;
};

/**
 * `GET /repos/{owner}/{name}/archive/{ref}.zip|.tar.gz`, the API twin of the web download:
 * the same stream, with the API's token authentication and JSON errors (404 unknown or
 * invisible repository or ref, 400 unknown extension, as Gitea answers).
 */
export function registerArchiveRoutes(parent: FastifyInstance, deps: ArchiveRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  server.get(
    '/repos/:owner/:name/archive/*',
    {
      schema: {
        summary: 'A source archive of a branch, tag or commit (.zip or .tar.gz)',
        tags: ['repository'],
        params: Params,
        response: { 400: errorResponses[404], ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, name, '*': tail } = request.params;
      const { repo } = await deps.services.repos.get(viewerUser(request.viewer), owner, name);
      const target = parseArchiveTarget(tail);
      if (!target) throw new BadRequest('unknown archive format: use .zip or .tar.gz');
      return deps.sendArchive(reply, repo, target);
    },
  );
}
