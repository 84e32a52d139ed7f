import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TObject } from 'typebox';
import { Invalid, Unauthenticated } from '../../../domain/errors.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import type {
  HookEvent,
  HookInput,
  HookOwner,
  HookType,
} from '../../../domain/webhooks/webhook.types.ts';
import { toApiHook } from '../../../present/hook.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import {
  type ApiCreateHookOption,
  type ApiEditHookOption,
  ApiHookSchema,
  CreateHookOptionSchema,
  EditHookOptionSchema,
} from '../../../present/schemas/hook.ts';
import { Type } from '../../../present/schemas/type.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { RepoParams, repoParamsWith } from './params.ts';

export type HookRouteDeps = {
  readonly services: Pick<DomainServices, 'webhooks'>;
};

const IdParam = { id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) };
const OrgParams = Type.Object({ org: Type.String({ maxLength: 200 }) });

function contentTypeOf(value: string | undefined): 'json' | 'form' | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'json' || value === 'form') return value;
  throw new Invalid('config.content_type must be json or form');
}

function methodOf(value: string | undefined): 'POST' | 'GET' | undefined {
  if (value === undefined || value === '') return undefined;
  const upper = value.toUpperCase();
  if (upper === 'POST' || upper === 'GET') return upper;
  throw new Invalid('config.http_method must be POST or GET');
}

/** A create or edit option as the service's input (the service checks names and URLs). */
function hookInput(option: ApiCreateHookOption | ApiEditHookOption): HookInput {
  const config = option.config ?? {};
  const input: HookInput = {
    ...('type' in option ? { type: option.type as HookType } : {}),
    ...(config.url !== undefined ? { url: config.url } : {}),
    ...(config.secret !== undefined ? { secret: config.secret } : {}),
    contentType: contentTypeOf(config.content_type),
    httpMethod: methodOf(config.http_method),
    ...(option.events !== undefined ? { events: option.events as HookEvent[] } : {}),
    ...(option.branch_filter !== undefined ? { branchFilter: option.branch_filter } : {}),
    ...(option.active !== undefined ? { active: option.active } : {}),
    ...(option.authorization_header !== undefined
      ? { authorizationHeader: option.authorization_header }
      : {}),
  };
  return input;
}

/** A level's path parameters, checked by its schema before any handler runs. */
type LevelParams = Readonly<Record<string, unknown>>;

/** Finds the owner a level's path names, as the viewer may see it. */
type OwnerOf = (viewer: User | undefined, params: LevelParams) => Promise<HookOwner>;

/** A path parameter the level's schema declares as a string. */
const text = (params: LevelParams, key: string): string => String(params[key]);

/** The hook id of `…/hooks/{id}`, an integer by the schema. */
const hookId = (params: LevelParams): number => Number(params.id);

/**
 * Webhooks as Gitea serves them, at three levels: a repository's (its admins), an
 * organisation's (its owners) and the instance's system hooks (site admins). Each level answers
 * the same five routes; a repository's also sends test deliveries. Who may see what is decided by
 * the webhook service (a private repository is 404 to outsiders, as everywhere).
 */
export function registerHookRoutes(parent: FastifyInstance, deps: HookRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { webhooks } = deps.services;
  const level = (path: string, params: TObject, tag: string, ownerOf: OwnerOf) => {
    const one = Type.Object({ ...params.properties, ...IdParam });
    const ownerFor = (request: FastifyRequest, found: LevelParams) =>
      ownerOf(viewerUser(request.viewer), found);
    server.get(
      path,
      {
        schema: {
          tags: [tag],
          summary: 'List hooks',
          params,
          response: { 200: Type.Array(ApiHookSchema), ...errorResponses },
        },
      },
      async (request) =>
        (await webhooks.list(await ownerFor(request, request.params))).map(toApiHook),
    );
    server.post(
      path,
      {
        schema: {
          tags: [tag],
          summary: 'Create a hook',
          params,
          body: CreateHookOptionSchema,
          response: { 201: ApiHookSchema, ...errorResponses },
        },
      },
      async (request, reply) => {
        const owner = await ownerFor(request, request.params);
        const hook = await webhooks.create(owner, hookInput(request.body));
        return reply.code(201).send(toApiHook(hook));
      },
    );
    server.get(
      `${path}/:id`,
      {
        schema: {
          tags: [tag],
          summary: 'Get a hook',
          params: one,
          response: { 200: ApiHookSchema, ...errorResponses },
        },
      },
      async (request) => {
        const id = hookId(request.params);
        return toApiHook(await webhooks.get(await ownerFor(request, request.params), id));
      },
    );
    server.patch(
      `${path}/:id`,
      {
        schema: {
          tags: [tag],
          summary: 'Edit a hook',
          params: one,
          body: EditHookOptionSchema,
          response: { 200: ApiHookSchema, ...errorResponses },
        },
      },
      async (request) => {
        const id = hookId(request.params);
        const owner = await ownerFor(request, request.params);
        return toApiHook(await webhooks.update(owner, id, hookInput(request.body)));
      },
    );
    server.delete(
      `${path}/:id`,
      {
        schema: {
          tags: [tag],
          summary: 'Delete a hook',
          params: one,
          response: { 204: Type.Null(), ...errorResponses },
        },
      },
      async (request, reply) => {
        const id = hookId(request.params);
        await webhooks.delete(await ownerFor(request, request.params), id);
        return reply.code(204).send(null);
      },
    );
  };

  level('/repos/:owner/:name/hooks', RepoParams, 'repository', (viewer, params) =>
    webhooks.repoOwner(viewer, text(params, 'owner'), text(params, 'name')),
  );
  level('/orgs/:org/hooks', OrgParams, 'organization', (viewer, params) =>
    webhooks.orgOwner(viewer, text(params, 'org')),
  );
  level('/admin/hooks', Type.Object({}), 'admin', async (viewer) => webhooks.systemOwner(viewer));

  server.post(
    '/repos/:owner/:name/hooks/:id/tests',
    {
      schema: {
        tags: ['repository'],
        summary: 'Send a test delivery: a push of the latest commit',
        params: repoParamsWith(IdParam),
        response: { 204: Type.Null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = viewerUser(request.viewer);
      const { owner, name, id } = request.params;
      if (!actor) throw new Unauthenticated('sign in to test hooks');
      await webhooks.sendTest(actor, owner, name, id);
      return reply.code(204).send(null);
    },
  );
}
