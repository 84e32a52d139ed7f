import type { FastifyInstance } from 'fastify';
import type { App } from '../../app.ts';
import { webErrorHandler } from '../errors/web-errors.ts';
import { refuseNul } from '../plugins/nul-guard.ts';
import { contentSecurityPolicy } from '../protect/challenge-csp.ts';
import { registerMetering } from '../protect/metering.plugin.ts';
import { registerAssetRoutes } from './assets.routes.ts';
import { registerForgePages } from './forge-pages.ts';
import type { Pages } from './page.ts';
import { registerAdminHousekeepingRoutes } from './pages/admin-housekeeping.routes.ts';
import { registerAdminRoutes } from './pages/admin-runners.routes.ts';
import { registerAuthRoutes } from './pages/auth.routes.ts';
import { registerChallengeRoutes } from './pages/challenge.routes.ts';
import { registerCiSettingsRoutes } from './pages/ci-settings.routes.ts';
import { registerHomeRoutes } from './pages/home.routes.ts';
import { registerPullDownloadRoutes } from './pages/pull-download.routes.ts';
import { registerSearchRoutes } from './pages/search.routes.ts';
import { registerTokenRoutes } from './pages/tokens.routes.ts';
import { viewerFromSession } from './session-cookie.ts';

export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/**
 * Rendered pages: session cookies (never Authorization headers), CSRF-checked forms, a strict
 * Content-Security-Policy without inline scripts, errors as pages.
 */
export async function webPlugin(
  server: FastifyInstance,
  opts: { app: App; pages: Pages },
): Promise<void> {
  const { app, pages } = opts;
  server.setErrorHandler(webErrorHandler(pages));
  server.addHook('preValidation', refuseNul);
  server.addHook('onRequest', async (request, reply) => {
    request.viewer = await viewerFromSession(app.services, request);
    reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'same-origin');
    reply.header('X-Frame-Options', 'DENY');
  });
  // After the viewer is known: meters routes with `config: { metered: true }` in this context.
  const protection = registerMetering(server, { config: app.config, pages });
  registerAssetRoutes(server);
  registerHomeRoutes(server, app, pages);
  registerAuthRoutes(server, app, pages, protection);
  registerTokenRoutes(server, app, pages);
  registerForgePages(server, app, pages);
  registerChallengeRoutes(server, app, pages, protection);
  registerSearchRoutes(server, app, pages);
  registerAdminRoutes(server, app, pages);
  registerAdminHousekeepingRoutes(server, app.services, pages);
  registerCiSettingsRoutes(server, app, pages);
  registerPullDownloadRoutes(server, app);
}
