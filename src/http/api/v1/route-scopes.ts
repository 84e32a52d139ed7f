import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ScopeCategory } from '../../../domain/tokens/token-scopes.ts';

/**
 * The token scope categories of every REST route, by route pattern under `/api/v1`, as Gitea
 * groups them in routers/api/v1/api.go (`tokenRequiresScopes`). The longest prefix that ends
 * on a segment boundary wins; a route may need several categories (Gitea nests groups, and a
 * token must then hold every one). An empty list is a route Gitea answers without any scope.
 *
 * Gitea quirks kept on purpose: labels are `issue`, not `repository`; pull requests and their
 * comments are `repository`; an organisation's repositories are `organization` only.
 */
export const ROUTE_SCOPES: ReadonlyArray<readonly [string, readonly ScopeCategory[]]> = [
  ['/version', []],
  ['/user', ['user']],
  ['/user/repos', ['user', 'repository']],
  ['/user/federation/forks', ['user', 'repository']],
  ['/users/:username', ['user']],
  ['/users/:username/repos', ['user', 'repository']],
  ['/users/:username/tokens', ['user']],
  ['/orgs', ['organization']],
  ['/orgs/:org', ['organization']],
  ['/teams', ['organization']],
  ['/repos', ['repository']],
  ['/repos/:owner/:name/labels', ['issue']],
  ['/admin', ['admin']],
];

function coversPattern(prefix: string, pattern: string): boolean {
  return pattern === prefix || pattern.startsWith(`${prefix}/`);
}

/**
 * The categories a route pattern (relative to `/api/v1`) needs, or undefined when the table
 * has no entry for it.
 */
export function scopeCategoriesOf(pattern: string): readonly ScopeCategory[] | undefined {
  let best: readonly [string, readonly ScopeCategory[]] | undefined;
  for (const entry of ROUTE_SCOPES) {
    if (coversPattern(entry[0], pattern) && (!best || entry[0].length > best[0].length)) {
      best = entry;
    }
  }
  return best?.[1];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The token scope categories of a REST route, filled in from ROUTE_SCOPES. */
    scopeCategories?: readonly ScopeCategory[];
  }
}

/**
 * Gives each REST route registered from now on its categories from the table, so a request
 * finds them on its route. A route the table does not cover stops the server from being built:
 * a new route cannot quietly skip the scope check.
 */
export function classifyRouteScopes(server: FastifyInstance, prefix: string): void {
  server.addHook('onRoute', (route: RouteOptions) => {
    const pattern = route.url.startsWith(prefix) ? route.url.slice(prefix.length) : route.url;
    const categories = scopeCategoriesOf(pattern);
    if (categories === undefined) {
      throw new Error(`REST route ${route.url} has no token scope category in ROUTE_SCOPES`);
    }
    route.config = { ...route.config, scopeCategories: categories };
  });
}
