import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BranchListing } from '../../../domain/branches/branch.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { toApiBranch } from '../../../present/branch.ts';
import type { ConvertContext } from '../../../present/context.ts';
import { ApiBranchSchema } from '../../../present/schemas/branch.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';
import { RepoParams, repoParamsWith } from './params.ts';

const BranchParams = repoParamsWith({
  // Greedy: `feature/x` arrives raw or as `feature%2Fx`, and Fastify decodes both to one value.
  '*': Type.String({ maxLength: 1000, description: 'the branch name; slashes raw or as %2F' }),
});
const tags = ['repository'];

function toApiBranches(listing: BranchListing, context: ConvertContext) {
  const { repo, access } = listing.visible;
  return listing.branches.map((branch) =>
    toApiBranch(branch, repo, access.level, listing.handles, context),
  );
}

/** What the routes use: branches, and the configuration for base URLs. */
export type BranchRouteDeps = {
  readonly services: Pick<DomainServices, 'branches'>;
  readonly config: BaseUrlConfig;
};

/** Branches: a paginated list and one branch by (slash-containing) name. */
export function registerBranchRoutes(parent: FastifyInstance, deps: BranchRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { branches } = deps.services;
  const context = (request: FastifyRequest): ConvertContext => ({
    baseUrl: baseUrlOf(request, deps.config),
  });

  server.get(
    '/repos/:owner/:name/branches',
    {
      schema: {
        summary: "A repository's branches, by name",
        tags,
        params: RepoParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiBranchSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const paging = readPaging(request.query);
      const listing = await branches.list(
        viewerUser(request.viewer),
        request.params.owner,
        request.params.name,
        paging,
      );
      setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, listing.total);
      return toApiBranches(listing, context(request));
    },
  );

  server.get(
    '/repos/:owner/:name/branches/*',
    {
      schema: {
        summary: 'One branch; only refs/heads counts, so a tag or sha is a 404',
        tags,
        params: BranchParams,
        response: { 200: ApiBranchSchema, ...errorResponses },
      },
    },
    async (request) => {
      const listing = await branches.get(
        viewerUser(request.viewer),
        request.params.owner,
        request.params.name,
        request.params['*'],
      );
      const [branch] = toApiBranches(listing, context(request));
      return branch;
    },
  );
}
