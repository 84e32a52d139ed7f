import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TObject } from 'typebox';
import { NotFound } from '../../../domain/errors.ts';
import type { VisibleRelease } from '../../../domain/releases/release.service.ts';
import type { ReleaseSelector } from '../../../domain/releases/release.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
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
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { strictValidatorCompiler } from '../../plugins/schema-compilers.ts';
import { readPaging, setPagingHeaders } from './paging.ts';
import { RepoParams, repoParamsWith } from './params.ts';

const tags = ['repository'];
const TagParams = repoParamsWith({
  // Greedy: tags may hold slashes, sent raw or as `%2F`.
  '*': Type.String({ maxLength: 1000, description: 'the tag name; slashes raw or as %2F' }),
});
const IdParams = repoParamsWith({
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

/** Which release of which repository: owner, name and the selector. */
type ReleaseAddress = [owner: string, name: string, selector: ReleaseSelector];
type RepoAddress = { readonly owner: string; readonly name: string };

/** A create or edit body in the release service's words (a create body always has its tag). */
function releaseInput<Body extends EditReleaseOption>(body: Body) {
  return {
    tagName: body.tag_name as Body['tag_name'],
    targetCommitish: body.target_commitish,
    name: body.name,
    body: body.body,
    prerelease: body.prerelease,
    draft: body.draft,
  };
}

/** What the routes use: releases, and the configuration for base URLs. */
export type ReleaseRouteDeps = {
  readonly services: Pick<DomainServices, 'releases'>;
  readonly config: BaseUrlConfig;
};

/**
 * Releases, Gitea-shaped: list, create, latest, and read/edit/delete by tag (greedy) or by the
 * folded id that tea uses. Deleting keeps the git tag.
 */
export function registerReleaseRoutes(parent: FastifyInstance, deps: ReleaseRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { releases } = deps.services;
  const context = (request: FastifyRequest): ConvertContext => ({
    baseUrl: baseUrlOf(request, deps.config),
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
      setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, total);
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
        releaseInput(body),
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

  // A release is addressed by tag or by id; each way has the same three routes.
  const byTag = { path: '/repos/:owner/:name/releases/tags/*', params: TagParams, what: 'by tag' };
  const byId = { path: '/repos/:owner/:name/releases/:id', params: IdParams, what: 'by id' };
  const readOptions = <Params extends TObject>(what: string, params: Params) => ({
    schema: {
      summary: `A release ${what}`,
      tags,
      params,
      response: { 200: ApiReleaseSchema, ...errorResponses },
    },
  });
  const editOptions = <Params extends TObject>(what: string, params: Params) => ({
    // Bodies are checked without coercion: Gitea refuses `5` for a string, `"yes"` for a boolean.
    validatorCompiler: strictValidatorCompiler,
    schema: {
      summary: `Edit a release ${what}`,
      tags,
      params,
      body: EditReleaseOptionSchema,
      response: { 200: ApiReleaseSchema, ...withConflict },
    },
  });
  const deleteOptions = <Params extends TObject>(what: string, params: Params) => ({
    schema: {
      summary: `Delete a release ${what}; its tag stays`,
      tags,
      params,
      response: noContent,
    },
  });
  const read = async (request: FastifyRequest, where: ReleaseAddress) =>
    show(request, await releases.get(viewerUser(request.viewer), ...where));
  const edit = async (request: FastifyRequest, where: ReleaseAddress, body: EditReleaseOption) =>
    show(request, await releases.update(requireUser(request), ...where, releaseInput(body)));
  const remove = async (request: FastifyRequest, reply: FastifyReply, where: ReleaseAddress) => {
    await releases.delete(requireUser(request), ...where);
    return reply.status(204).send(null);
  };
  /**
   * The read, edit and delete routes of one way of addressing a release. `params` has been
   * checked against `way.params` (repository plus what `select` reads) before a handler runs.
   */
  const addressedRoutes = <Selected>(
    way: { readonly path: string; readonly params: TObject; readonly what: string },
    select: (params: Selected) => ReleaseSelector,
  ) => {
    const where = (params: unknown): ReleaseAddress => {
      const checked = params as Selected & RepoAddress;
      return [checked.owner, checked.name, select(checked)];
    };
    server.get(way.path, readOptions(way.what, way.params), async (request) =>
      read(request, where(request.params)),
    );
    server.patch(way.path, editOptions(way.what, way.params), async (request) =>
      edit(request, where(request.params), request.body),
    );
    server.delete(way.path, deleteOptions(way.what, way.params), async (request, reply) =>
      remove(request, reply, where(request.params)),
    );
  };
  addressedRoutes(byTag, tagSelector);
  addressedRoutes(byId, idSelector);
}
