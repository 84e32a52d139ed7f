import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Forbidden } from '../../../domain/errors.ts';
import type { Block } from '../../../domain/federation/blocks.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { federationOf } from './federation.routes.ts';
import { RepoParams } from './params.ts';

/** What the routes use: federation (absent when off) and who is a site administrator. */
export type FederationBlockRouteDeps = {
  readonly services: Pick<DomainServices, 'federation' | 'admins'>;
};

const tags = ['federation'];
const Kind = Type.Union([Type.Literal('actor'), Type.Literal('host')]);
/** An actor's URL, or a server's host (`bad.example`, `bad.example:8443`). */
const BlockBody = Type.Object({
  kind: Kind,
  target: Type.String({ minLength: 1, maxLength: 2000 }),
});
const BlockSchema = Type.Object({ kind: Kind, target: Type.String(), created_at: Type.String() });
const SiteBlocksSchema = Type.Object({
  actors: Type.Array(BlockSchema),
  hosts: Type.Array(Type.String()),
});
const Made = Type.Object({ kind: Kind, target: Type.String() });
const noContent = { 204: Type.Null(), ...errorResponses };

function toApiBlock(block: Block) {
  return { kind: block.kind, target: block.target, created_at: block.createdAt.toISOString() };
}

/**
 * Kiln's own routes for blocks of remote actors and servers: the site's
 * (`/admin/federation/blocks`, site administrators only, 403 to anyone else) and a repository's
 * (`/repos/{owner}/{repo}/federation/blocks`, its administrators only). A block is given as
 * `{kind, target}` and taken back with `DELETE` and the same two as query parameters. Every
 * route is 404 when federation is off.
 */
export function registerFederationBlockRoutes(
  parent: FastifyInstance,
  deps: FederationBlockRouteDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const federation = federationOf(deps.services);
  const asAdmin = (user: ReturnType<typeof requireUser>) => {
    if (!deps.services.admins.isAdmin(user)) {
      throw new Forbidden('only site administrators may manage federation blocks');
    }
    return federation().blocks;
  };

  server.get(
    '/admin/federation/blocks',
    {
      schema: {
        summary: 'The site’s blocks of remote actors and servers',
        tags,
        response: { 200: SiteBlocksSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { actors, hosts } = await asAdmin(requireUser(request)).site();
      return { actors: actors.map(toApiBlock), hosts };
    },
  );
  server.post(
    '/admin/federation/blocks',
    {
      schema: {
        summary: 'Block a remote actor or server everywhere',
        tags,
        body: BlockBody,
        response: { 201: Made, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { kind, target } = request.body;
      const made = await asAdmin(requireUser(request)).blockSite(kind, target);
      return reply.status(201).send({ kind, target: made });
    },
  );
  server.delete(
    '/admin/federation/blocks',
    {
      schema: {
        summary: 'Take a site block back',
        tags,
        querystring: BlockBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      const { kind, target } = request.query;
      await asAdmin(requireUser(request)).unblockSite(kind, target);
      return reply.status(204).send(null);
    },
  );

  server.get(
    '/repos/:owner/:name/federation/blocks',
    {
      schema: {
        summary: 'The remote actors and servers blocked from this repository',
        tags,
        params: RepoParams,
        response: { 200: Type.Array(BlockSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name } = request.params;
      const blocks = await federation().blocks.ofRepo(requireUser(request), owner, name);
      return blocks.map(toApiBlock);
    },
  );
  server.post(
    '/repos/:owner/:name/federation/blocks',
    {
      schema: {
        summary: 'Block a remote actor or server from this repository',
        tags,
        params: RepoParams,
        body: BlockBody,
        response: { 201: Made, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { owner, name } = request.params;
      const { kind } = request.body;
      const target = await federation().blocks.blockForRepo(
        requireUser(request),
        owner,
        name,
        request.body,
      );
      return reply.status(201).send({ kind, target });
    },
  );
  server.delete(
    '/repos/:owner/:name/federation/blocks',
    {
      schema: {
        summary: 'Take a block of this repository back',
        tags,
        params: RepoParams,
        querystring: BlockBody,
        response: noContent,
      },
    },
    async (request, reply) => {
      const { owner, name } = request.params;
      await federation().blocks.unblockForRepo(requireUser(request), owner, name, request.query);
      return reply.status(204).send(null);
    },
  );
}
