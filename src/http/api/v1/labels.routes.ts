import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { ApiLabelSchema } from '../../../present/schemas/label.ts';
import { Type } from '../../../present/schemas/type.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';
import { RepoParams } from './params.ts';

/** What the routes use: repositories (labels are not kept), and the configuration for base URLs. */
export type LabelRouteDeps = {
  readonly services: Pick<DomainServices, 'repos'>;
  readonly config: BaseUrlConfig;
};

/**
 * Labels: Kiln has no label model, so the list is always empty (SPEC.md). It still answers 200
 * for every visible repository, since Renovate does not survive an error here.
 */
export function registerLabelRoutes(parent: FastifyInstance, deps: LabelRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  server.get(
    '/repos/:owner/:name/labels',
    {
      schema: {
        summary: "A repository's labels: always none",
        tags: ['issue'],
        params: RepoParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiLabelSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      await deps.services.repos.get(
        viewerUser(request.viewer),
        request.params.owner,
        request.params.name,
      );
      const paging = readPaging(request.query);
      setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, 0);
      return [];
    },
  );
}
