import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { Federation } from '../../../domain/federation/federation.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';

/** What the routes use: the federation domain (absent when federation is off). */
export type FederationApiDeps = {
  readonly services: Pick<DomainServices, 'federation'>;
};

/** A remote actor as a person names it: `@name@host`, `name@host` or its URL. */
const Actor = Type.String({ minLength: 1, maxLength: 2000 });
const ActorBody = Type.Object({ actor: Actor });
const FollowingSchema = Type.Object({
  actor: Type.String(),
  state: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('rejected')]),
});
const tags = ['federation'];
const noContent = { 204: Type.Null(), ...errorResponses };

/** A getter of federation that answers 404 when it is off (every federation route's rule). */
export function federationOf(services: Pick<DomainServices, 'federation'>): () => Federation {
  return () => {
    if (!services.federation) throw new NotFound('federation is off on this server');
    return services.federation;
  };
}

/**
 * Kiln's own (not Gitea's) REST API for following and starring remote actors, the same actions
 * as the `/settings/federation` page: list, follow, unfollow; list, star, unstar. Names that
 * lead nowhere are 422 with the reason; every route is 404 when federation is off.
 */
export function registerFederationApiRoutes(
  parent: FastifyInstance,
  deps: FederationApiDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const federation = federationOf(deps.services);

  server.get(
    '/user/federation/following',
    {
      schema: {
        summary: 'The remote actors the caller follows, and whether each accepted',
        tags,
        response: { 200: Type.Array(FollowingSchema), ...errorResponses },
      },
    },
    async (request) => federation().following.following(requireUser(request)),
  );
  server.post(
    '/user/federation/following',
    {
      schema: {
        summary: 'Follow a remote actor (answered by the remote later: see GET)',
        tags,
        body: ActorBody,
        response: { 202: FollowingSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = await federation().following.follow(requireUser(request), request.body.actor);
      return reply.status(202).send({ actor, state: 'pending' as const });
    },
  );
  server.delete(
    '/user/federation/following',
    {
      schema: {
        summary: 'Unfollow a remote actor',
        tags,
        querystring: ActorBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      await federation().following.unfollow(requireUser(request), request.query.actor);
      return reply.status(204).send(null);
    },
  );

  server.get(
    '/user/federation/starred',
    {
      schema: {
        summary: 'The remote repositories the caller starred',
        tags,
        response: { 200: Type.Array(Type.String()), ...errorResponses },
      },
    },
    async (request) => federation().following.starred(requireUser(request)),
  );
  for (const [method, on] of [
    ['post', true],
    ['delete', false],
  ] as const) {
    server[method](
      '/user/federation/starred',
      {
        schema: {
          summary: on ? 'Star a remote repository' : 'Take back the star of a remote repository',
          tags,
          querystring: ActorBody,
          response: noContent,
        },
      },
      async (request, reply) => {
        await federation().following.star(requireUser(request), request.query.actor, on);
        return reply.status(204).send(null);
      },
    );
  }
}
