import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Server } from '../../lib/node-http.ts';

/** One registered route as Fastify holds it: the pattern, not a concrete path. */
export type CatalogedRoute = {
  readonly method: string;
  /** The full pattern with its prefix, `/repos/:owner/:name/commit/:sha`. */
  readonly url: string;
  readonly metered: boolean;
};

// Keyed by the HTTP server, which every encapsulated context of one instance shares.
const CATALOGS = new WeakMap<Server, CatalogedRoute[]>();

/**
 * Records every route registered on `server` from now on, so that what is metered can be
 * checked against what is served (a route nobody classified fails a test, not a crawler's
 * victim). Must run before any route or plugin is registered.
 */
export function recordRoutes(server: FastifyInstance): void {
  const routes: CatalogedRoute[] = [];
  CATALOGS.set(server.server, routes);
  server.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      routes.push({ method, url: route.url, metered: route.config?.metered === true });
    }
  });
}

/** The routes of a built server (empty when `recordRoutes` was not called on it). */
export function routesOf(server: FastifyInstance): readonly CatalogedRoute[] {
  return CATALOGS.get(server.server) ?? [];
}
