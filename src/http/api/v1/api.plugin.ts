import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../config/config.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { CacheRegistry } from '../../../lib/cache-registry.ts';
import { PullViews } from '../../../present/pull-views.ts';
import { RepoViews } from '../../../present/repo-views.ts';
import { viewerFromAuthorization } from '../../auth/api-auth.ts';
import { viewerFromPasswordOrToken } from '../../auth/password-auth.ts';
import { requireViewerScope, scopeLevelOf } from '../../auth/token-scope.ts';
import { apiErrorHandler, apiNotFoundHandler } from '../../errors/api-errors.ts';
import { refuseNul } from '../../plugins/nul-guard.ts';
import { parseTrustedProxies } from '../../protect/client-ip.ts';
import { requestClientIp } from '../../protect/metering.plugin.ts';
import { registerActionApprovalRoutes } from './action-approval.routes.ts';
import { registerActionCacheRoutes } from './action-caches.routes.ts';
import { registerActionCancelRoutes } from './action-cancel.routes.ts';
import { registerActionRoutes } from './actions.routes.ts';
import { type ArchiveSender, registerArchiveRoutes } from './archive.routes.ts';
import { registerArtifactRoutes } from './artifacts.routes.ts';
import { registerBranchProtectionRoutes } from './branch-protections.routes.ts';
import { registerBranchRoutes } from './branches.routes.ts';
import { registerCollaboratorRoutes } from './collaborators.routes.ts';
import { registerDeployKeyRoutes } from './deploy-keys.routes.ts';
import { registerFederationApiRoutes } from './federation.routes.ts';
import { registerFederationBlockRoutes } from './federation-blocks.routes.ts';
import { registerFederationForkRoutes } from './federation-forks.routes.ts';
import { registerFederationPullRoutes } from './federation-pulls.routes.ts';
import { registerHookRoutes } from './hooks.routes.ts';
import { registerKeyRoutes } from './keys.routes.ts';
import { registerLabelRoutes } from './labels.routes.ts';
import { registerMediaRoutes } from './media.routes.ts';
import { registerMiscRoutes } from './misc.routes.ts';
import { registerOrgActionRoutes } from './org-actions.routes.ts';
import { registerOrgRoutes } from './orgs.routes.ts';
import { registerPullReviewRoutes } from './pull-reviews.routes.ts';
import { registerPullRoutes } from './pulls.routes.ts';
import { registerReleaseRoutes } from './releases.routes.ts';
import { registerRepoActionSettingsRoutes } from './repo-actions-settings.routes.ts';
import { RepoAnswers } from './repo-answers.ts';
import { registerRepoRoutes } from './repos.routes.ts';
import { registerReviewCommentRoutes } from './review-comments.routes.ts';
import { classifyRouteScopes } from './route-scopes.ts';
import { registerStatusRoutes } from './statuses.routes.ts';
import { registerTeamRepoRoutes } from './team-repos.routes.ts';
import { registerTeamRoutes } from './teams.routes.ts';
import { registerTokenRoutes } from './tokens.routes.ts';
import { registerUserRoutes } from './users.routes.ts';

/** The services the REST routes use, and those its credential checks read. */
type ApiServices = Pick<
  DomainServices,
  | 'users'
  | 'admins'
  | 'orgs'
  | 'teams'
  | 'tokens'
  | 'repos'
  | 'federation'
  | 'collaborators'
  | 'branches'
  | 'releases'
  | 'commitStatuses'
  | 'protectedBranches'
  | 'pulls'
  | 'pullMerges'
  | 'reviewComments'
  | 'ciRunQueries'
  | 'ciTriggers'
  | 'ciSecrets'
  | 'ciVariables'
  | 'code'
> &
  Parameters<typeof viewerFromAuthorization>[0] &
  Parameters<typeof viewerFromPasswordOrToken>[0];

/** What `/api/v1` hands out to its routes: the union of what each of them takes. */
export type ApiV1Deps = {
  readonly services: ApiServices;
  /** Read by the error answers (base URL), the credential checks (trusted proxies), `/version`. */
  readonly config: Parameters<typeof apiErrorHandler>[0] & Pick<Config, 'trustProxy'>;
  readonly sendArchive: ArchiveSender;
  /** Where the REST answers' caches are declared (the process's registry). */
  readonly caches?: Pick<CacheRegistry, 'addEach'>;
};

/**
 * `/api/v1`: the Gitea-shaped REST API. Tokens only (no cookies, so no CSRF surface), but for
 * the token API, which also takes a password; every token is held to the scopes of the route
 * (route-scopes.ts) before the route runs. Errors as Gitea's `{message, url}`; every unknown
 * path a JSON 404.
 */
export async function apiV1Plugin(server: FastifyInstance, deps: ApiV1Deps): Promise<void> {
  const { services, config } = deps;
  server.setErrorHandler(apiErrorHandler(config));
  server.setNotFoundHandler(apiNotFoundHandler(config));
  // Clients send `Content-Type: application/json` on bodiless DELETEs and merges; Gitea reads
  // that as no body, so an empty JSON body is no body here too (never a 400).
  const parseJson = server.getDefaultJsonParser('error', 'error');
  server.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === ''))
      return done(null, undefined);
    return parseJson(request, body.toString(), done);
  });
  server.addHook('preValidation', refuseNul);
  const trusted = parseTrustedProxies(config.trustProxy);
  server.addHook('onRequest', (request, _reply, done) => {
    const { authorization } = request.headers;
    // Without credentials the viewer stays anonymous (the request's default), no promise made.
    if (authorization === undefined) return done();
    const route = request.routeOptions.config;
    const viewer = route.passwordAuth
      ? viewerFromPasswordOrToken(services, authorization, requestClientIp(request, trusted))
      : viewerFromAuthorization(services, authorization);
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
  registerMiscRoutes(server, deps);
  registerUserRoutes(server, deps);
  registerFederationApiRoutes(server, deps);
  registerTokenRoutes(server, deps);
  registerKeyRoutes(server, deps);
  const views = new RepoViews(deps);
  registerDeployKeyRoutes(server, { ...deps, views });
  const repoAnswers = new RepoAnswers(views, deps.caches);
  registerRepoRoutes(server, { ...deps, views, answers: repoAnswers });
  registerTeamRepoRoutes(server, { ...deps, answers: repoAnswers });
  registerFederationForkRoutes(server, { ...deps, views });
  registerFederationBlockRoutes(server, deps);
  registerFederationPullRoutes(server, deps);
  registerCollaboratorRoutes(server, deps);
  registerBranchRoutes(server, deps);
  registerReleaseRoutes(server, deps);
  registerLabelRoutes(server, deps);
  registerHookRoutes(server, deps);
  registerOrgActionRoutes(server, deps);
  registerRepoActionSettingsRoutes(server, deps);
  registerOrgRoutes(server, deps);
  registerTeamRoutes(server, deps);
  registerStatusRoutes(server, { ...deps, views });
  registerBranchProtectionRoutes(server, deps);
  registerArchiveRoutes(server, deps);
  registerMediaRoutes(server, deps);
  registerPullRoutes(server, { ...deps, views: new PullViews(deps, views) });
  registerReviewCommentRoutes(server, deps);
  registerPullReviewRoutes(server, deps);
  registerActionRoutes(server, {
    runs: services.ciRunQueries,
    triggers: services.ciTriggers,
    reruns: services.ciRunReruns,
    config,
  });
  registerActionCancelRoutes(server, { cancels: services.ciRunCancels });
  registerArtifactRoutes(server, { artifacts: services.ciArtifactQueries, config });
  registerActionApprovalRoutes(server, {
    runs: services.ciRunQueries,
    approvals: services.ciRunApprovals,
    config,
  });
  registerActionCacheRoutes(server, { caches: services.ciCaches, config });
}
