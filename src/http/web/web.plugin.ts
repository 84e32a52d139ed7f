import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/config.ts';
import type { DomainServices } from '../../domain/services.ts';
import { webErrorHandler } from '../errors/web-errors.ts';
import { refuseNul } from '../plugins/nul-guard.ts';
import { contentSecurityPolicy } from '../protect/challenge-csp.ts';
import { registerMetering } from '../protect/metering.plugin.ts';
import { registerAssetRoutes } from './assets.routes.ts';
import { type ForgePagesDeps, registerForgePages } from './forge-pages.ts';
import type { Pages } from './page.ts';
import { registerPageGate } from './page-gate.ts';
import { type AdminRouteDeps, registerAdminPages } from './pages/admin.routes.ts';
import {
  type AdminFederationDeps,
  registerAdminFederationRoutes,
} from './pages/admin-federation.routes.ts';
import {
  type AdminHousekeepingDeps,
  registerAdminHousekeepingRoutes,
} from './pages/admin-housekeeping.routes.ts';
import { type AdminRunnerRouteDeps, registerAdminRoutes } from './pages/admin-runners.routes.ts';
import { type AuthRouteDeps, registerAuthRoutes } from './pages/auth.routes.ts';
import { type ChallengeRouteDeps, registerChallengeRoutes } from './pages/challenge.routes.ts';
import { type CiSettingsRouteDeps, registerCiSettingsRoutes } from './pages/ci-settings.routes.ts';
import {
  type FederationSettingsDeps,
  registerFederationSettingsRoutes,
} from './pages/federation-settings.routes.ts';
import { type HomeRouteDeps, registerHomeRoutes } from './pages/home.routes.ts';
import {
  type PullDownloadRouteDeps,
  registerPullDownloadRoutes,
} from './pages/pull-download.routes.ts';
import { registerSearchRoutes, type SearchRouteDeps } from './pages/search.routes.ts';
import { registerSshKeyPages, type SshKeyPageDeps } from './pages/ssh-keys.routes.ts';
import { registerSyncForkRoutes } from './pages/sync-fork.routes.ts';
import { registerTokenRoutes, type TokenRouteDeps } from './pages/tokens.routes.ts';
import {
  registerWebhookSettingsRoutes,
  type WebhookSettingsRouteDeps,
} from './pages/webhooks.routes.ts';
import { viewerFromSession } from './session-cookie.ts';

export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/** What the pages use, all together: the union of what each group of routes is handed. */
export type WebPluginDeps = HomeRouteDeps &
  AuthRouteDeps &
  TokenRouteDeps &
  SshKeyPageDeps &
  ForgePagesDeps &
  ChallengeRouteDeps &
  SearchRouteDeps &
  AdminRouteDeps &
  AdminRunnerRouteDeps &
  AdminHousekeepingDeps &
  FederationSettingsDeps &
  AdminFederationDeps &
  CiSettingsRouteDeps &
  WebhookSettingsRouteDeps &
  PullDownloadRouteDeps & {
    readonly services: Pick<DomainServices, 'sessions'>;
    readonly config: Pick<Config, 'protect' | 'trustProxy' | 'render'>;
  };

/**
 * Rendered pages: session cookies (never Authorization headers), CSRF-checked forms, a strict
 * Content-Security-Policy without inline scripts, errors as pages.
 */
export async function webPlugin(
  server: FastifyInstance,
  opts: WebPluginDeps & { readonly pages: Pages },
): Promise<void> {
  const { pages } = opts;
  const deps: WebPluginDeps = opts;
  server.setErrorHandler(webErrorHandler(pages));
  server.addHook('preValidation', refuseNul);
  server.addHook('onRequest', async (request, reply) => {
    request.viewer = await viewerFromSession(deps.services, request);
    reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'same-origin');
    reply.header('X-Frame-Options', 'DENY');
  });
  // After the viewer is known: meters routes with `config: { metered: true }` in this context.
  const protection = registerMetering(server, { config: deps.config, pages });
  registerPageGate(server, deps.config.render.pages);
  registerAssetRoutes(server);
  registerHomeRoutes(server, deps, pages);
  registerAuthRoutes(server, deps, pages, protection);
  registerTokenRoutes(server, deps, pages);
  registerSshKeyPages(server, deps, pages);
  registerForgePages(server, deps, pages);
  registerChallengeRoutes(server, deps, pages, protection);
  registerSearchRoutes(server, deps, pages);
  registerAdminPages(server, deps, pages);
  registerAdminRoutes(server, deps, pages);
  registerAdminHousekeepingRoutes(server, deps, pages);
  registerFederationSettingsRoutes(server, deps, pages);
  registerSyncForkRoutes(server, deps, pages);
  registerAdminFederationRoutes(server, deps, pages);
  registerCiSettingsRoutes(server, deps, pages);
  registerWebhookSettingsRoutes(server, deps, pages);
  registerPullDownloadRoutes(server, deps);
}
