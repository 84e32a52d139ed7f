import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app.ts';
import { viewerFromAuthorization } from '../../auth/api-auth.ts';
import { viewerFromPasswordOrToken } from '../../auth/password-auth.ts';
import { requireViewerScope, scopeLevelOf } from '../../auth/token-scope.ts';
import { apiErrorHandler, apiNotFoundHandler } from '../../errors/api-errors.ts';
import { refuseNul } from '../../plugins/nul-guard.ts';
import { parseTrustedProxies } from '../../protect/client-ip.ts';
import { requestClientIp } from '../../protect/metering.plugin.ts';
import { registerActionRoutes } from './actions.routes.ts';
import { registerArchiveRoutes } from './archive.routes.ts';
import { registerBranchProtectionRoutes } from './branch-protections.routes.ts';
import { registerBranchRoutes } from './branches.routes.ts';
import { registerCollaboratorRoutes } from './collaborators.routes.ts';
import { registerHookRoutes } from './hooks.routes.ts';
import { registerLabelRoutes } from './labels.routes.ts';
import { registerMiscRoutes } from './misc.routes.ts';
import { PullViews } from './pull-views.ts';
import { registerPullRoutes } from './pulls.routes.ts';
import { registerReleaseRoutes } from './releases.routes.ts';
import { RepoViews } from './repo-views.ts';
import { registerRepoRoutes } from './repos.routes.ts';
import { registerReviewCommentRoutes } from './review-comments.routes.ts';
import { classifyRouteScopes } from './route-scopes.ts';
import { registerStatusRoutes } from './statuses.routes.ts';
import { registerTokenRoutes } from './tokens.routes.ts';
import { registerUserRoutes } from './users.routes.ts';

/**
 * `/api/v1`: the Gitea-shaped REST API. Tokens only (no cookies, so no CSRF surface), but for
 * the token API, which also takes a password; every token is held to the scopes of the route
 * (route-scopes.ts) before the route runs. Errors as Gitea's `{message, url}`; every unknown
 * path a JSON 404.
 */
export async function apiV1Plugin(server: FastifyInstance, opts: { app: App }): Promise<void> {
  const { app } = opts;
  server.setErrorHandler(apiErrorHandler(app.config));
  server.setNotFoundHandler(apiNotFoundHandler(app.config));
  // Clients send `Content-Type: application/json` on bodiless DELETEs and merges; Gitea reads
  // that as no body, so an empty JSON body is no body here too (never a 400).
  const parseJson = server.getDefaultJsonParser('error', 'error');
  server.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === ''))
      return done(null, undefined);
    return parseJson(request, body.toString(), done);
  });
  server.addHook('preValidation', refuseNul);
  const trusted = parseTrustedProxies(app.config.trustProxy);
  server.addHook('onRequest', (request, _reply, done) => {
    const { authorization } = request.headers;
    // Without credentials the viewer stays anonymous (the request's default), no promise made.
    if (authorization === undefined) return done();
    const route = request.routeOptions.config;
    const viewer = route.passwordAuth
      ? viewerFromPasswordOrToken(app.services, authorization, requestClientIp(request, trusted))
      : viewerFromAuthorization(app.services, authorization);
    viewer
      .then((found) => {
        request.viewer = found;
        // Every route has its categories (classifyRouteScopes refuses one without); only an
        // unknown path has none, and it answers 404 whatever the token.
        requireViewerScope(found, scopeLevelOf(request.method), route.scopeCategories ?? []);
      })
      .then(() => done(), done);
  });
  classifyRouteScopes(server, '/api/v1');
  registerMiscRoutes(server, app);
  registerUserRoutes(server, app);
  registerTokenRoutes(server, app);
  const views = new RepoViews(app);
  registerRepoRoutes(server, app, views);
  registerCollaboratorRoutes(server, app);
  registerBranchRoutes(server, app);
  registerReleaseRoutes(server, app);
  registerLabelRoutes(server, app);
  registerHookRoutes(server, { services: app.services });
  registerStatusRoutes(server, app, views);
  registerBranchProtectionRoutes(server, app);
  registerArchiveRoutes(server, app);
  registerPullRoutes(server, app, new PullViews(app, views));
  registerReviewCommentRoutes(server, app);
  registerActionRoutes(server, {
    runs: app.services.ciRunQueries,
    triggers: app.services.ciTriggers,
    config: app.config,
  });
}
