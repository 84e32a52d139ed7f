import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ArtifactQueryService } from '../../../domain/ci/artifacts/artifact-query.service.ts';
import { toApiArtifact } from '../../../present/artifact.ts';
import {
  ApiActionArtifactSchema,
  ApiActionArtifactsResponseSchema,
} from '../../../present/schemas/artifact.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { RunParams } from './actions.routes.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';
import { RepoParams, repoParamsWith } from './params.ts';

/** What the artifact routes use. */
export type ArtifactRoutesDeps = {
  readonly artifacts: ArtifactQueryService;
  readonly config: BaseUrlConfig;
};

const tags = ['repository'];
const ArtifactParams = repoParamsWith({
  artifact: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});
const ListQuery = Type.Object(
  {
    ...PagingQuerySchema.properties,
    name: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: true },
);

/**
 * Workflow artifacts as Gitea serves them under `/repos/{owner}/{repo}/actions/`: listed by
 * repository or run, one by id, its zip (streamed as it is built), and deletion by a writer.
 * Private repositories' artifacts are 404 to whoever may not read them.
 */
export function registerArtifactRoutes(parent: FastifyInstance, deps: ArtifactRoutesDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { artifacts } = deps;
  const base = (request: FastifyRequest) => baseUrlOf(request, deps.config);

  server.get(
    '/repos/:owner/:name/actions/artifacts',
    {
      schema: {
        summary: 'List the artifacts of a repository, newest first',
        tags,
        params: RepoParams,
        querystring: ListQuery,
        response: { 200: ApiActionArtifactsResponseSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const paging = readPaging(request.query);
      const { params } = request;
      const listed = await artifacts.listForRepo(
        viewerUser(request.viewer),
        params.owner,
        params.name,
        paging,
        request.query.name,
      );
      setPagingHeaders(request, reply, base(request), paging, listed.total);
      return {
        artifacts: listed.artifacts.map((view) => toApiArtifact(view, listed.repo, base(request))),
        total_count: listed.total,
      };
    },
  );

  server.get(
    '/repos/:owner/:name/actions/runs/:run/artifacts',
    {
      schema: {
        summary: 'List the artifacts of a workflow run',
        tags,
        params: RunParams,
        response: { 200: ApiActionArtifactsResponseSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { params } = request;
      const listed = await artifacts.listForRun(
        viewerUser(request.viewer),
        params.owner,
        params.name,
        params.run,
      );
      return {
        artifacts: listed.artifacts.map((view) => toApiArtifact(view, listed.repo, base(request))),
        total_count: listed.artifacts.length,
      };
    },
  );

  server.get(
    '/repos/:owner/:name/actions/artifacts/:artifact',
    {
      schema: {
        summary: 'Get an artifact',
        tags,
        params: ArtifactParams,
        response: { 200: ApiActionArtifactSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { params } = request;
      const { repo, view } = await artifacts.get(
        viewerUser(request.viewer),
        params.owner,
        params.name,
        params.artifact,
      );
      return toApiArtifact(view, repo, base(request));
    },
  );

  server.delete(
    '/repos/:owner/:name/actions/artifacts/:artifact',
    {
      schema: {
        summary: 'Delete an artifact',
        tags,
        params: ArtifactParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { params } = request;
      await artifacts.delete(requireUser(request), params.owner, params.name, params.artifact);
      return reply.status(204).send(null);
    },
  );

  server.get(
    '/repos/:owner/:name/actions/artifacts/:artifact/zip',
    {
      schema: {
        summary: 'Download an artifact as a zip archive',
        tags,
        params: ArtifactParams,
        response: { 200: Type.String(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { params } = request;
      const { view, bytes } = await artifacts.zip(
        viewerUser(request.viewer),
        params.owner,
        params.name,
        params.artifact,
      );
      // Streamed as it is built; the schema's string documents the body.
      const plain: FastifyReply = reply;
      return plain
        .type('application/zip')
        .header(
          'content-disposition',
          `attachment; filename*=UTF-8''${encodeURIComponent(view.artifact.name)}.zip`,
        )
        .send(bytes instanceof Readable ? bytes : Readable.from(bytes));
    },
  );
}
