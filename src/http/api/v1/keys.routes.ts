import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Forbidden } from '../../../domain/errors.ts';
import type { SshKey } from '../../../domain/keys/ssh-key.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { toApiPublicKey } from '../../../present/public-key.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  ApiCreateKeyOptionSchema,
  ApiPublicKeySchema,
  KeyListQuerySchema,
} from '../../../present/schemas/key.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';
import { PagingQuerySchema, readPaging, setPagingHeaders } from './paging.ts';

const tags = ['user'];
/** A key's wire id: a positive integer that fits a double exactly. */
const KeyId = Type.String({ pattern: '^[1-9][0-9]{0,15}$' });
const UserParams = Type.Object({ username: Type.String({ maxLength: 100 }) });
const ListQuery = Type.Object({
  ...PagingQuerySchema.properties,
  ...KeyListQuerySchema.properties,
});

/** What the routes use: keys, their owners and who is an admin, and the base URL settings. */
export type KeyRouteDeps = {
  readonly services: Pick<DomainServices, 'sshKeys' | 'users' | 'admins'>;
  readonly config: BaseUrlConfig;
};

/** One page of `keys`, filtered by fingerprint when asked, with Gitea's paging headers. */
export function pageOfKeys(
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
  keys: readonly SshKey[],
  query: {
    page?: string | undefined;
    limit?: string | undefined;
    fingerprint?: string | undefined;
  },
): SshKey[] {
  const { fingerprint } = query;
  const wanted = fingerprint ? keys.filter((key) => key.fingerprint === fingerprint) : keys;
  const paging = readPaging(query);
  setPagingHeaders(request, reply, baseUrl, paging, wanted.length);
  return wanted.slice(paging.offset, paging.offset + paging.limit);
}

/**
 * Gitea's SSH key API for people: the caller's own keys (`/user/keys`), anyone's public keys
 * (`/users/{username}/keys`, as `https://host/{username}.keys` is elsewhere), and an
 * administrator adding or removing a key for someone (`/admin/users/{username}/keys`).
 */
export function registerKeyRoutes(parent: FastifyInstance, deps: KeyRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { sshKeys, users, admins } = deps.services;
  const context = (request: FastifyRequest) => ({ baseUrl: baseUrlOf(request, deps.config) });
  const asAdmin = async (request: FastifyRequest, username: string): Promise<User> => {
    if (!admins.isAdmin(requireUser(request))) {
      throw new Forbidden('only site administrators may manage the keys of others');
    }
    return users.getUser(username);
  };
  const one = { 200: ApiPublicKeySchema, ...errorResponses };
  const made = { 201: ApiPublicKeySchema, ...errorResponses };
  const list = { 200: Type.Array(ApiPublicKeySchema), ...errorResponses };
  const gone = { 204: Type.Null(), ...errorResponses };

  server.get(
    '/user/keys',
    { schema: { summary: 'Your SSH keys', tags, querystring: ListQuery, response: list } },
    async (request, reply) => {
      const keys = await sshKeys.listUserKeys(requireUser(request));
      const shown = context(request);
      return pageOfKeys(request, reply, shown.baseUrl, keys, request.query).map((key) =>
        toApiPublicKey(key, shown),
      );
    },
  );

  server.post(
    '/user/keys',
    {
      schema: { summary: 'Add an SSH key', tags, body: ApiCreateKeyOptionSchema, response: made },
    },
    async (request, reply) => {
      const user = requireUser(request);
      const key = await sshKeys.addUserKey(user, request.body);
      return reply.status(201).send(toApiPublicKey(key, context(request), user));
    },
  );

  server.get(
    '/user/keys/:id',
    {
      schema: {
        summary: 'One of your SSH keys',
        tags,
        params: Type.Object({ id: KeyId }),
        response: one,
      },
    },
    async (request) => {
      const user = requireUser(request);
      const key = await sshKeys.getUserKey(user, Number(request.params.id));
      return toApiPublicKey(key, context(request), user);
    },
  );

  server.delete(
    '/user/keys/:id',
    {
      schema: {
        summary: 'Remove one of your SSH keys',
        tags,
        params: Type.Object({ id: KeyId }),
        response: gone,
      },
    },
    async (request, reply) => {
      await sshKeys.deleteUserKey(requireUser(request), Number(request.params.id));
      return reply.status(204).send(null);
    },
  );

  server.get(
    '/users/:username/keys',
    {
      schema: {
        summary: "A person's public SSH keys",
        tags,
        params: UserParams,
        querystring: ListQuery,
        response: list,
      },
    },
    async (request, reply) => {
      const owner = await users.getUser(request.params.username);
      const keys = await sshKeys.listUserKeys(owner);
      const shown = context(request);
      return pageOfKeys(request, reply, shown.baseUrl, keys, request.query).map((key) =>
        toApiPublicKey(key, shown),
      );
    },
  );

  server.post(
    '/admin/users/:username/keys',
    {
      schema: {
        summary: "Add an SSH key to someone's account (administrators)",
        tags: ['admin'],
        params: UserParams,
        body: ApiCreateKeyOptionSchema,
        response: made,
      },
    },
    async (request, reply) => {
      const owner = await asAdmin(request, request.params.username);
      const key = await sshKeys.addUserKey(owner, request.body);
      return reply.status(201).send(toApiPublicKey(key, context(request), owner));
    },
  );

  server.delete(
    '/admin/users/:username/keys/:id',
    {
      schema: {
        summary: "Remove an SSH key from someone's account (administrators)",
        tags: ['admin'],
        params: Type.Object({ username: Type.String({ maxLength: 100 }), id: KeyId }),
        response: gone,
      },
    },
    async (request, reply) => {
      const owner = await asAdmin(request, request.params.username);
      await sshKeys.deleteUserKey(owner, Number(request.params.id));
      return reply.status(204).send(null);
    },
  );
}
