import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { RepoViews } from '../../../present/repo-views.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { ApiRepositorySchema } from '../../../present/schemas/repo.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { federationOf } from './federation.routes.ts';
import { RepoParams } from './params.ts';

/** What the routes use: federation (absent when off), repositories and their views. */
export type FederationForkRouteDeps = {
  readonly services: Pick<DomainServices, 'federation' | 'repos'>;
  readonly config: BaseUrlConfig;
  readonly views: RepoViews;
};

const tags = ['federation'];
const ForkBody = Type.Object({
  /** The remote repository: its URL, or a handle WebFinger resolves. */
  actor: Type.String({ minLength: 1, maxLength: 2000 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
const UpstreamSchema = Type.Object({ actor: Type.String(), clone_url: Type.String() });
const RemoteForkSchema = Type.Object({ actor: Type.String(), owner: Type.String() });
const MergeUpstreamBody = Type.Object({
  branch: Type.String({ minLength: 1, maxLength: 255 }),
});
const MergeUpstreamSchema = Type.Object({
  merge_type: Type.Union([Type.Literal('fast-forward'), Type.Literal('')]),
});

/**
 * Forks across servers: Kiln's own routes (beside `/user/federation/following`) to fork a remote
 * repository and to read a fork's upstream and a repository's remote forks, and Gitea's
 * `merge-upstream` for forks of remote repositories. Every route is 404 when federation is off.
 */
export function registerFederationForkRoutes(
  parent: FastifyInstance,
  deps: FederationForkRouteDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { repos } = deps.services;
  const federation = federationOf(deps.services);

  server.post(
    '/user/federation/forks',
    {
      schema: {
        summary: 'Fork a repository of another server into the caller’s account',
        tags,
        body: ForkBody,
        response: { 201: ApiRepositorySchema, ...errorResponses, 409: errorResponses[404] },
      },
    },
    async (request, reply) => {
      const user = requireUser(request);
      const forks = federation().forks;
      const fork = await forks.fork(user, request.body.actor, request.body.name);
      const context = { baseUrl: baseUrlOf(request, deps.config) };
      return reply.status(201).send(await deps.views.one(user, fork, context));
    },
  );
  server.get(
    '/repos/:owner/:name/federation/upstream',
    {
      schema: {
        summary: 'The repository on another server this one was forked from',
        tags,
        params: RepoParams,
        response: { 200: UpstreamSchema, ...errorResponses },
      },
    },
    async (request) => {
      const forks = federation().forks;
      const { owner, name } = request.params;
      const { repo } = await repos.require(viewerUser(request.viewer), owner, name, 'read');
      const upstream = await forks.upstreamOf(repo);
      if (!upstream) throw new NotFound('this repository is not a fork of a repository elsewhere');
      return { actor: upstream.actor, clone_url: upstream.cloneUri };
    },
  );
  server.get(
    '/repos/:owner/:name/federation/forks',
    {
      schema: {
        summary: 'The forks other servers made of this repository',
        tags,
        params: RepoParams,
        response: { 200: Type.Array(RemoteForkSchema), ...errorResponses },
      },
    },
    async (request) => {
      const forks = federation().forks;
      const { owner, name } = request.params;
      const { repo } = await repos.require(viewerUser(request.viewer), owner, name, 'read');
      return (await forks.forksOf(repo)).map(({ actor, owner: by }) => ({ actor, owner: by }));
    },
  );
  server.post(
    '/repos/:owner/:name/merge-upstream',
    {
      schema: {
        summary: 'Bring a branch of a fork of a remote repository up to its upstream',
        tags,
        params: RepoParams,
        body: MergeUpstreamBody,
        response: { 200: MergeUpstreamSchema, ...errorResponses, 409: errorResponses[404] },
      },
    },
    async (request) => {
      const forks = federation().forks;
      const { owner, name } = request.params;
      const user = requireUser(request);
      const result = await forks.mergeUpstream(user, owner, name, request.body.branch);
      return { merge_type: result.mergeType };
    },
  );
}
