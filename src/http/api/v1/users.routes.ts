import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { DomainServices } from '../../../domain/services.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { ApiUserSchema } from '../../../present/schemas/user.ts';
import { toApiUser } from '../../../present/user.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';

/** What the routes use: the accounts and who is an admin, and the configuration for base URLs. */
export type UserRouteDeps = {
  readonly services: Pick<DomainServices, 'users' | 'admins'>;
  readonly config: BaseUrlConfig;
};

export function registerUserRoutes(parent: FastifyInstance, deps: UserRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  server.get(
    '/user',
    {
      schema: {
        summary: 'The authenticated user, with their email',
        tags: ['user'],
        response: { 200: ApiUserSchema, ...errorResponses },
      },
    },
    async (request) => {
      const user = requireUser(request);
      return toApiUser(
        user,
        { baseUrl: baseUrlOf(request, deps.config) },
        { self: true, isAdmin: deps.services.admins.isAdmin(user) },
      );
    },
  );

  server.get(
    '/users/:username',
    {
      schema: {
        summary: 'A user or organisation by name (never with an email)',
        tags: ['user'],
        params: Type.Object({ username: Type.String({ maxLength: 100 }) }),
        response: { 200: ApiUserSchema, ...errorResponses },
      },
    },
    async (request) => {
      const account = await deps.services.users.getAccount(request.params.username);
      const viewer = viewerUser(request.viewer);
      // Whether someone is disabled is the operators' business, as in Gitea.
      const view =
        viewer && deps.services.admins.isAdmin(viewer)
          ? {
              self: false,
              isAdmin: false,
              prohibitLogin: await deps.services.users.isDisabled(account),
            }
          : undefined;
      return toApiUser(account, { baseUrl: baseUrlOf(request, deps.config) }, view);
    },
  );
}
