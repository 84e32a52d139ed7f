import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { Type } from '../../../present/schemas/type.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { RunParams } from '../page-params.ts';

/** What the artifact download uses. */
export type ArtifactDownloadRouteDeps = {
  readonly services: Pick<DomainServices, 'ciArtifactQueries'>;
};

const ArtifactParams = Type.Object({ ...RunParams.properties, artifact: Type.String() });

/**
 * The run page's download link: the artifact as a zip, streamed as it is built, for whoever may
 * read the repository (404 otherwise, as for the run itself).
 */
export function registerArtifactDownloadRoutes(
  parent: FastifyInstance,
  deps: ArtifactDownloadRouteDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  server.get(
    '/repos/:owner/:name/actions/runs/:run/artifacts/:artifact',
    { schema: { params: ArtifactParams } },
    async (request, reply) => {
      const { owner, name, run, artifact } = request.params;
      if (!/^\d{1,15}$/.test(artifact) || !/^\d{1,15}$/.test(run)) {
        throw new NotFound('artifact not found');
      }
      const zip = await deps.services.ciArtifactQueries.zip(
        viewerUser(request.viewer),
        owner,
        name,
        Number(artifact),
      );
      if (zip.view.runNumber !== Number(run)) throw new NotFound('artifact not found');
      return reply
        .type('application/zip')
        .header(
          'content-disposition',
          `attachment; filename*=UTF-8''${encodeURIComponent(zip.view.artifact.name)}.zip`,
        )
        .send(zip.bytes instanceof Readable ? zip.bytes : Readable.from(zip.bytes));
    },
  );
}
