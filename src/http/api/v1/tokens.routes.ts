import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Forbidden, NotFound } from '../../../domain/errors.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { AccessToken } from '../../../domain/tokens/token.service.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { foldId } from '../../../lib/ids.ts';
import { toApiAccessToken } from '../../../present/access-token.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  ApiAccessTokenSchema,
  ApiCreateAccessTokenOptionSchema,
} from '../../../present/schemas/token.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';

const UserParams = Type.Object({ username: Type.String({ maxLength: 100 }) });
const tags = ['user'];
// The onRequest hook of the API reads this and accepts a password over HTTP Basic here.
const config = { passwordAuth: true };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes the account's password over HTTP Basic besides tokens (the token API). */
    passwordAuth?: boolean;
  }
}

/** Gitea's "id, or else name" of `DELETE /users/{username}/tokens/{token}`. */
function findToken(tokens: readonly AccessToken[], key: string): AccessToken {
  const id = /^[1-9][0-9]{0,15}$/.test(key) ? Number(key) : undefined;
  const found =
    (id !== undefined ? tokens.find((token) => foldId(token.id) === id) : undefined) ??
    tokens.find((token) => token.name === key);
  if (!found) throw new NotFound('access token does not exist');
  return found;
}

/** What the routes use: tokens, their owners and who is an admin, and the configuration for base URLs. */
export type TokenRouteDeps = {
  readonly services: Pick<DomainServices, 'tokens' | 'users' | 'admins'>;
  readonly config: BaseUrlConfig;
};

/**
 * Gitea's token API, which `tea login add` and scripts use to get a token from a password:
 * list, create and delete the personal access tokens of `{username}`, who must be the caller
 * (or the caller an administrator). Creating one takes the account's password over HTTP Basic,
 * never a token: a token could otherwise mint one with more scopes than its own.
 */
export function registerTokenRoutes(parent: FastifyInstance, deps: TokenRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { tokens, users, admins } = deps.services;

  /** The account whose tokens these are, when the caller may manage them. */
  const tokenOwner = async (request: FastifyRequest, username: string): Promise<User> => {
    const caller = requireUser(request);
    const owner = await users.getUser(username);
    if (owner.id !== caller.id && !admins.isAdmin(caller)) {
      throw new Forbidden('doer should be the site admin or be same as the contextUser');
    }
    return owner;
  };

  server.get(
    '/users/:username/tokens',
    {
      config,
      schema: {
        summary: "A user's access tokens (never the tokens themselves)",
        tags,
        params: UserParams,
        querystring: PagingQuerySchema,
        response: { 200: Type.Array(ApiAccessTokenSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const all = await tokens.list(await tokenOwner(request, request.params.username));
      const paging = readPaging(request.query);
      setPagingHeaders(request, reply, baseUrlOf(request, deps.config), paging, all.length);
      return all
        .slice(paging.offset, paging.offset + paging.limit)
        .map((token) => toApiAccessToken(token));
    },
  );

  server.post(
    '/users/:username/tokens',
    {
      config,
      schema: {
        summary: 'Create an access token with scopes; the token is in `sha1`, shown once',
        tags,
        params: UserParams,
        body: ApiCreateAccessTokenOptionSchema,
        response: { 201: ApiAccessTokenSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const owner = await tokenOwner(request, request.params.username);
      if (request.viewer.kind === 'user' && request.viewer.via === 'token') {
        throw new Forbidden("creating a token takes the account's password (HTTP Basic)");
      }
      const { name, scopes } = request.body;
      // Clients of the Gitea version Kiln reports (1.13) know nothing of scopes and name none
      // (Go clients send null, which schema coercion may turn into [""]); their tokens could do
      // everything then, and do here, as tokens of the command line do.
      const named = (scopes ?? []).filter((scope) => scope.trim() !== '');
      const made = await tokens.create(owner, name, { scopes: named.length > 0 ? named : 'all' });
      return reply.status(201).send(toApiAccessToken(made.record, made.token));
    },
  );

  server.delete(
    '/users/:username/tokens/:token',
    {
      config,
      schema: {
        summary: 'Delete an access token, named by its id or else by its name',
        tags,
        params: Type.Object({
          username: Type.String({ maxLength: 100 }),
          token: Type.String({ maxLength: 200 }),
        }),
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const owner = await tokenOwner(request, request.params.username);
      const token = findToken(await tokens.list(owner), request.params.token);
      await tokens.revoke(owner, token.id);
      return reply.status(204).send(null);
    },
  );
}
