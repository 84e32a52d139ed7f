import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TObject } from 'typebox';
import type { Config } from '../../../config/config.ts';
import type { VisibleRepo } from '../../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { ConvertContext } from '../../../present/context.ts';
import type { RepoViews } from '../../../present/repo-views.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  ApiRepositorySchema,
  CreateForkOptionSchema,
  CreateRepoOptionSchema,
  EditRepoOptionSchema,
} from '../../../present/schemas/repo.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { type Paging, PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';
import { RepoParams } from './params.ts';
import type { RepoAnswers, SerializeRepository } from './repo-answers.ts';

const RepoList = Type.Array(ApiRepositorySchema);
const OrgParams = Type.Object({ org: Type.String({ maxLength: 100 }) });

const tags = ['repository'];

/** The Repository schema as Fastify's serializer cache takes it: one object, compiled once. */
const REPOSITORY_SCHEMA: Record<string, unknown> = { ...ApiRepositorySchema };

/**
 * Writes one Repository object as the response serializer of its schema does. Single answers and
 * every list use this one function, so a list's items are the single GET's texts, and the texts
 * RepoAnswers keeps serve both.
 */
export function repositorySerializer(reply: FastifyReply): SerializeRepository {
  const serialize = reply.compileSerializationSchema(REPOSITORY_SCHEMA);
  return (repository) => {
    const written = serialize(repository);
    return typeof written === 'string' ? written : new TextDecoder().decode(written);
  };
}

/**
 * Fastify sends text or bytes with a JSON content type as they are, without serializing them
 * again.
 */
export function sendSerialized(reply: FastifyReply, serialized: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(serialized);
}

const SEARCH_OPEN = Buffer.from('{"ok":true,"data":');
const SEARCH_CLOSE = Buffer.from('}');

/** What the routes use: repositories, and the configuration for base and SSH clone URLs. */
export type RepoRouteDeps = {
  readonly services: Pick<DomainServices, 'repos'>;
  readonly config: BaseUrlConfig & Pick<Config, 'ssh'>;
  /** The facts a Repository record shows, and REST's serialized answers made from them. */
  readonly views: RepoViews;
  readonly answers: RepoAnswers;
};

/** Repositories: create, read, list, edit, delete and fork. */
export function registerRepoRoutes(parent: FastifyInstance, deps: RepoRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { repos } = deps.services;
  const { views, answers } = deps;
  const context = (request: FastifyRequest): ConvertContext => ({
    baseUrl: baseUrlOf(request, deps.config),
    ssh: deps.config.ssh,
  });

  /** A list route's options: its parameters (typed where it is registered) and paging query. */
  const listOptions = <Params extends TObject>(summary: string, params: Params) => ({
    schema: {
      summary,
      tags,
      params,
      querystring: PagingQuerySchema,
      response: { 200: RepoList, ...errorResponses },
    },
  });
  /** A list of Repository objects, as the bytes the list's schema would write. */
  const listText = (request: FastifyRequest, reply: FastifyReply, items: readonly VisibleRepo[]) =>
    answers.serializedList(
      viewerUser(request.viewer),
      items,
      context(request),
      repositorySerializer(reply),
    );
  const sendList = async (
    request: FastifyRequest,
    reply: FastifyReply,
    items: readonly VisibleRepo[],
  ) => sendSerialized(reply, await listText(request, reply, items));
  /** One page of the repositories `load` finds, with the paging headers. */
  const answerPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    load: (paging: Paging) => ReturnType<typeof repos.listVisible>,
  ) => {
    const paging = readPaging(request.query);
    const { items, total } = await load(paging);
    setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, total);
    return sendList(request, reply, items);
  };

  const noParams = Type.Object({});
  server.get(
    '/repos',
    listOptions('Repositories the caller can see', noParams),
    async (request, reply) =>
      answerPage(request, reply, (paging) => repos.listVisible(viewerUser(request.viewer), paging)),
  );
  server.get(
    '/user/repos',
    listOptions(
      "The caller's repositories, collaborations and organisations' repositories",
      noParams,
    ),
    async (request, reply) =>
      answerPage(request, reply, (paging) => repos.listForMember(requireUser(request), paging)),
  );
  server.get(
    '/users/:username/repos',
    listOptions(
      "A user's or organisation's repositories the caller can see",
      Type.Object({ username: Type.String({ maxLength: 100 }) }),
    ),
    async (request, reply) =>
      answerPage(request, reply, (paging) =>
        repos.listByOwner(viewerUser(request.viewer), request.params.username, paging),
      ),
  );
  server.get(
    '/orgs/:org/repos',
    listOptions("An organisation's repositories the caller can see", OrgParams),
    async (request, reply) =>
      answerPage(request, reply, (paging) =>
        repos.listByOwner(viewerUser(request.viewer), request.params.org, paging, 'org'),
      ),
  );

  server.get(
    '/repos/search',
    {
      schema: {
        summary: 'Search repositories the caller can see',
        tags,
        querystring: Type.Object(
          { q: Type.Optional(Type.String({ maxLength: 200 })) },
          { additionalProperties: true },
        ),
        response: { 200: Type.Object({ ok: Type.Boolean(), data: RepoList }) },
      },
    },
    async (request, reply) => {
      const paging = readPaging(request.query);
      const query = request.query.q?.trim();
      const { items, total } = await repos.listVisible(
        viewerUser(request.viewer),
        paging,
        query ? { query } : {},
      );
      setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, total);
      // The schema's own writing of { ok, data }: `ok` first, then the list.
      const list = await listText(request, reply, items);
      return sendSerialized(reply, Buffer.concat([SEARCH_OPEN, list, SEARCH_CLOSE]));
    },
  );

  const create = async (
    request: FastifyRequest,
    orgName: string | undefined,
    body: Static<typeof CreateRepoOptionSchema>,
  ) => {
    const actor = requireUser(request);
    const created = await repos.create(actor, {
      orgName,
      name: body.name,
      description: body.description,
      private: body.private,
      autoInit: body.auto_init,
      defaultBranch: body.default_branch,
    });
    return views.one(actor, created, context(request));
  };

  server.post(
    '/user/repos',
    {
      schema: {
        summary: 'Create a repository',
        tags,
        body: CreateRepoOptionSchema,
        response: { 201: ApiRepositorySchema, ...errorResponses, 409: errorResponses[404] },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await create(request, undefined, request.body)),
  );
  server.post(
    '/orgs/:org/repos',
    {
      schema: {
        summary: 'Create a repository in an organisation',
        tags,
        params: OrgParams,
        body: CreateRepoOptionSchema,
        response: { 201: ApiRepositorySchema, ...errorResponses, 409: errorResponses[404] },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await create(request, request.params.org, request.body)),
  );

  server.get(
    '/repos/:owner/:name',
    {
      schema: {
        summary: 'A repository',
        tags,
        params: RepoParams,
        response: { 200: ApiRepositorySchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const viewer = viewerUser(request.viewer);
      const visible = await repos.get(viewer, request.params.owner, request.params.name);
      const text = await answers.serialized(
        viewer,
        visible,
        context(request),
        repositorySerializer(reply),
      );
      return sendSerialized(reply, text);
    },
  );

  server.patch(
    '/repos/:owner/:name',
    {
      schema: {
        summary: "Edit a repository's description, visibility or default branch",
        tags,
        params: RepoParams,
        body: EditRepoOptionSchema,
        response: { 200: ApiRepositorySchema, ...errorResponses },
      },
    },
    async (request) => {
      const actor = requireUser(request);
      const { body } = request;
      await repos.updateSettings(actor, request.params.owner, request.params.name, {
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.private !== undefined ? { private: body.private } : {}),
        ...(body.default_branch !== undefined ? { defaultBranch: body.default_branch } : {}),
      });
      const visible = await repos.get(actor, request.params.owner, request.params.name);
      return views.one(actor, visible, context(request));
    },
  );

  server.delete(
    '/repos/:owner/:name',
    {
      schema: {
        summary: 'Delete a repository',
        tags,
        params: RepoParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      await repos.delete(requireUser(request), request.params.owner, request.params.name);
      return reply.status(204).send(null);
    },
  );

  server.post(
    '/repos/:owner/:name/forks',
    {
      schema: {
        summary: 'Fork a repository',
        tags,
        params: RepoParams,
        body: Type.Union([CreateForkOptionSchema, Type.Null()]),
        response: { 202: ApiRepositorySchema, ...errorResponses, 409: errorResponses[404] },
      },
    },
    async (request, reply) => {
      const actor = requireUser(request);
      const body = request.body ?? {};
      const fork = await repos.fork(actor, request.params.owner, request.params.name, {
        ...(body.organization ? { orgName: body.organization } : {}),
        ...(body.name ? { name: body.name } : {}),
      });
      // Gitea answers 202 Accepted for a fork, even though Kiln's fork is complete at once.
      return reply.status(202).send(await views.one(actor, fork, context(request)));
    },
  );

  server.get(
    '/repos/:owner/:name/forks',
    {
      schema: {
        summary: 'Forks of a repository',
        tags,
        params: RepoParams,
        querystring: PagingQuerySchema,
        response: { 200: RepoList, ...errorResponses },
      },
    },
    async (request, reply) => {
      const viewer = viewerUser(request.viewer);
      const { repo } = await repos.get(viewer, request.params.owner, request.params.name);
      const paging = readPaging(request.query);
      const forks = await repos.listForksVisible(viewer, repo, paging);
      setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, forks.total);
      return sendList(request, reply, forks.items);
    },
  );
}
