import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { App } from '../../../app.ts';
import { NotFound } from '../../../domain/errors.ts';
import type { VisibleRelease } from '../../../domain/releases/release.service.ts';
import type { ReleaseSelector } from '../../../domain/releases/release.types.ts';
import type { ConvertContext } from '../../../present/context.ts';
import { toApiRelease } from '../../../present/release.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  ApiReleaseSchema,
  CreateReleaseOptionSchema,
  type EditReleaseOption,
  EditReleaseOptionSchema,
  ReleaseListQuerySchema,
} from '../../../present/schemas/release.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { baseUrlOf } from '../../base-url.ts';
import { strictValidatorCompiler } from '../../plugins/schema-compilers.ts';
import { readPaging, setPagingHeaders } from './paging.ts';
import { RepoParams } from './repos.routes.ts';

const tags = ['repository'];
const TagParams = Type.Object({
  owner: Type.String({ maxLength: 200 }),
  name: Type.String({ maxLength: 200 }),
  // Greedy: tags may hold slashes, sent raw or as `%2F`.
  '*': Type.String({ maxLength: 1000, description: 'the tag name; slashes raw or as %2F' }),
});
const IdParams = Type.Object({
  owner: Type.String({ maxLength: 200 }),
  name: Type.String({ maxLength: 200 }),
  id: Type.String({ maxLength: 20, description: 'the release id as listed' }),
});
const noContent = { 204: Type.Null(), ...errorResponses };
const withConflict = { ...errorResponses, 409: errorResponses[404] };

function flag(value: string | undefined): boolean | undefined {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

function tagSelector(params: { '*': string }): ReleaseSelector {
  if (params['*'] === '') throw new NotFound('release tag does not exist [tag_name: ]');
  return { tag: params['*'] };
}

/** The folded wire id; anything that is not one names no release. */
function idSelector(params: { id: string }): ReleaseSelector {
  if (!/^\d{1,16}$/.test(params.id))
    throw new NotFound(`release does not exist [id: ${params.id}]`);
  return { wireId: Number(params.id) };
}

function editInput(body: EditReleaseOption) {
  return {
    tagName: body.tag_name,
    targetCommitish: body.target_commitish,
    name: body.name,
    body: body.body,
    prerelease: body.prerelease,
    draft: body.draft,
  };
}

/**
 * Releases, Gitea-shaped: list, create, latest, and read/edit/delete by tag (greedy) or by the
 * folded id that tea uses. Deleting keeps the git tag.
 */
export function registerReleaseRoutes(parent: FastifyInstance, app: App): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { releases } = app.services;
  const context = (request: FastifyRequest): ConvertContext => ({
    baseUrl: baseUrlOf(request, app.config),
  });
  const show = (request: FastifyRequest, { visible, release }: VisibleRelease) =>
    toApiRelease(release, visible.repo, context(request));

  server.get(
    '/repos/:owner/:name/releases',
    {
      schema: {
        summary: "A repository's releases, newest first",
        tags,
        params: RepoParams,
        querystring: ReleaseListQuerySchema,
        response: { 200: Type.Array(ApiReleaseSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const paging = readPaging(request.query);
      const { visible, items, total } = await releases.list(
        viewerUser(request.viewer),
        request.params.owner,
        request.params.name,
        paging,
        {
          draft: flag(request.query.draft),
          prerelease: flag(request.query['pre-release']),
        },
      );
      setPagingHeaders(request, reply, baseUrlOf(request, app.config), paging, total);
      return items.map((release) => toApiRelease(release, visible.repo, context(request)));
    },
  );

  server.post(
    '/repos/:owner/:name/releases',
    {
      // Bodies are checked without coercion: Gitea refuses `5` for a string, `"yes"` for a boolean.
      validatorCompiler: strictValidatorCompiler,
      schema: {
        summary: 'Publish a release; a missing tag is made from target_commitish',
        tags,
        params: RepoParams,
        body: CreateReleaseOptionSchema,
        response: { 201: ApiReleaseSchema, ...withConflict },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const created = await releases.create(
        requireUser(request),
        request.params.owner,
        request.params.name,
        {
          tagName: body.tag_name,
          targetCommitish: body.target_commitish,
          name: body.name,
          body: body.body,
          prerelease: body.prerelease,
          draft: body.draft,
        },
      );
      return reply.status(201).send(show(request, created));
    },
  );

  server.get(
    '/repos/:owner/:name/releases/latest',
    {
      schema: {
        summary: 'The newest release that is not a prerelease',
        tags,
        params: RepoParams,
        response: { 200: ApiReleaseSchema, ...errorResponses },
      },
    },
    async (request) =>
      show(
        request,
        await releases.latest(
          viewerUser(request.viewer),
          request.params.owner,
          request.params.name,
        ),
      ),
  );

  for (const [path, Params, selectorOf, what] of [
    ['/repos/:owner/:name/releases/tags/*', TagParams, tagSelector, 'by tag'],
    ['/repos/:owner/:name/releases/:id', IdParams, idSelector, 'by id'],
  ] as const) {
    const select = selectorOf as (params: unknown) => ReleaseSelector;
    server.get(
      path,
      {
        schema: {
          summary: `A release ${what}`,
          tags,
          params: Params,
          response: { 200: ApiReleaseSchema, ...errorResponses },
        },
      },
      async (request) => {
        const params = request.params as { owner: string; name: string };
        return show(
          request,
          await releases.get(viewerUser(request.viewer), params.owner, params.name, select(params)),
        );
      },
    );
    server.patch(
      path,
      {
        // Bodies are checked without coercion: Gitea refuses `5` for a string, `"yes"` for a boolean.
        validatorCompiler: strictValidatorCompiler,
        schema: {
          summary: `Edit a release ${what}`,
          tags,
          params: Params,
          body: EditReleaseOptionSchema,
          response: { 200: ApiReleaseSchema, ...withConflict },
        },
      },
      async (request) => {
        const params = request.params as { owner: string; name: string };
        const edited = await releases.update(
          requireUser(request),
          params.owner,
          params.name,
          select(params),
          editInput(request.body as EditReleaseOption),
        );
        return show(request, edited);
      },
    );
    server.delete(
      path,
      {
        schema: {
          summary: `Delete a release ${what}; its tag stays`,
          tags,
          params: Params,
          response: noContent,
        },
      },
      async (request, reply) => {
        const params = request.params as { owner: string; name: string };
        await releases.delete(requireUser(request), params.owner, params.name, select(params));
        return reply.status(204).send(null);
      },
    );
  }
}
