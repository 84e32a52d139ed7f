import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app.ts';
import { viewerFromAuthorization } from '../../auth/api-auth.ts';
import { apiErrorHandler, apiNotFoundHandler } from '../../errors/api-errors.ts';
import { registerCollaboratorRoutes } from './collaborators.routes.ts';
import { registerMiscRoutes } from './misc.routes.ts';
import { RepoViews } from './repo-views.ts';
import { registerRepoRoutes } from './repos.routes.ts';
import { registerUserRoutes } from './users.routes.ts';

/**
 * `/api/v1`: the Gitea-shaped REST API. Tokens only (no cookies, so no CSRF surface); errors
 * as Gitea's `{message, url}`; every unknown path a JSON 404.
 */
export async function apiV1Plugin(server: FastifyInstance, opts: { app: App }): Promise<void> {
  const { app } = opts;
  server.setErrorHandler(apiErrorHandler(app.config));
  server.setNotFoundHandler(apiNotFoundHandler(app.config));
  server.addHook('onRequest', async (request) => {
    request.viewer = await viewerFromAuthorization(app.services, request.headers.authorization);
  });
  registerMiscRoutes(server, app);
  registerUserRoutes(server, app);
  const views = new RepoViews(app);
  registerRepoRoutes(server, app, views);
  registerCollaboratorRoutes(server, app);
}
