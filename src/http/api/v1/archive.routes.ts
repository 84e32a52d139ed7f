import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { baseUrlOf } from '../../base-url.ts';
import type { ApiErrorBody } from '../../errors/api-errors.ts';
import { parseArchiveTarget, sendArchive } from '../../git/archive.routes.ts';

const Params = Type.Object({
  owner: Type.String({ maxLength: 200 }),
  name: Type.String({ maxLength: 200 }),
  '*': Type.String({ maxLength: 300 }),
});

/**
 * `GET /repos/{owner}/{name}/archive/{ref}.zip|.tar.gz`, the API twin of the web download:
 * the same stream, with the API's token authentication and JSON errors (404 unknown or
 * invisible repository or ref, 400 unknown extension, as Gitea answers).
 */
export function registerArchiveRoutes(server: FastifyInstance, app: App): void {
  server.get<{ Params: { owner: string; name: string; '*': string } }>(
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
      const { repo } = await app.services.repos.get(viewerUser(request.viewer), owner, name);
      const target = parseArchiveTarget(tail);
      if (!target) {
        return reply.status(400).send({
          message: 'unknown archive format: use .zip or .tar.gz',
          url: `${baseUrlOf(request, app.config)}/api/swagger`,
        } satisfies ApiErrorBody);
      }
      return sendArchive(app, reply, repo, target);
    },
  );
}
