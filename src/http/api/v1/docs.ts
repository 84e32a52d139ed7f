import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Config } from '../../../config/config.ts';
import { lazily } from '../../../lib/lazily.ts';
import { KILN_VERSION } from '../../../version.ts';
import { lazySchemaCompilers } from '../../plugins/schema-compilers.ts';

/** What the OpenAPI document needs of a route. */
/** What the API document shows besides the routes: the forge API version. */
export type ApiDocsDeps = { readonly config: Pick<Config, 'forgeApiVersion'> };

type DocumentedRoute = Pick<RouteOptions, 'method' | 'url' | 'schema'>;

/** Where the documentation is served: the UI under the first, the JSON at the second. */
const UI_PREFIX = '/api/swagger';
const DOCUMENT_URL = '/api/v1/swagger.json';

/** Request headers the documentation server needs: conditional requests get their 304. */
const PASSED_ON = ['accept', 'if-none-match', 'if-modified-since'] as const;
/** Response headers that describe a connection, not the answer; the server sets its own. */
const NOT_PASSED_BACK = new Set(['connection', 'content-length', 'date', 'keep-alive']);

/**
 * The OpenAPI document of `/api/v1`, built from the routes' TypeBox schemas: the UI at
 * `/api/swagger`, the JSON at `/api/v1/swagger.json`. Only tagged (API) routes are listed.
 *
 * Few servers are ever asked for it, so it is built on the first request for it, by a private
 * Fastify instance that holds `@fastify/swagger`, its UI and a copy of every documented route
 * (method, URL and schema; the handlers never run) and answers through `inject`. Until then the
 * server only records each route as it is registered, and holds neither plugin nor the YAML
 * library they load. Call this before registering the routes to document.
 */
export function registerApiDocs(server: FastifyInstance, deps: ApiDocsDeps): void {
  const routes: DocumentedRoute[] = [];
  server.addHook('onRoute', (route) => {
    // Untagged routes (pages, git, these) stay out, as do the HEAD twins of GET routes.
    const methods = [route.method].flat().filter((method) => method !== 'HEAD');
    if (route.schema?.tags === undefined || methods.length === 0) return;
    routes.push({ method: methods, url: route.url, schema: route.schema });
  });

  const docs = lazily(() => documentationServer(routes, deps));
  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    const headers = Object.fromEntries(
      PASSED_ON.flatMap((name) => {
        const value = request.headers[name];
        return typeof value === 'string' ? [[name, value]] : [];
      }),
    );
    const response = await (await docs()).inject({
      method: request.method === 'HEAD' ? 'HEAD' : 'GET',
      url: request.url,
      headers,
    });
    if (response.statusCode === 404) return reply.callNotFound();
    reply.code(response.statusCode);
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && !NOT_PASSED_BACK.has(name)) reply.header(name, value);
    }
    // A redirect or a 304 has no body, and must not be given a content type for one.
    return response.rawPayload.length > 0 ? reply.send(response.rawPayload) : reply.send();
  };
  for (const url of [DOCUMENT_URL, UI_PREFIX, `${UI_PREFIX}/`, `${UI_PREFIX}/*`]) {
    server.get(url, { logLevel: 'warn' }, answer);
  }
}

async function documentationServer(
  routes: readonly DocumentedRoute[],
  deps: ApiDocsDeps,
): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ]);
  // Schemas are compiled on first use, that is never: no request reaches these routes.
  const docs = Fastify({ schemaController: { compilersFactory: lazySchemaCompilers() } });
  await docs.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Kiln API',
        description: 'Gitea-compatible REST API of Kiln.',
        version: deps.config.forgeApiVersion,
      },
      servers: [{ url: '/api/v1' }],
      components: {
        securitySchemes: {
          AuthorizationHeaderToken: { type: 'apiKey', in: 'header', name: 'Authorization' },
        },
      },
      security: [{ AuthorizationHeaderToken: [] }],
      tags: [{ name: 'kiln', description: `Kiln ${KILN_VERSION}` }],
    },
    hideUntagged: true,
    transform: ({ schema, url }) => ({
      schema,
      url: url.startsWith('/api/v1') ? url.slice('/api/v1'.length) || '/' : url,
    }),
  });
  await docs.register(async (scope) => {
    for (const route of routes) scope.route({ ...route, handler: neverCalled });
  });
  await docs.register(swaggerUi, { routePrefix: UI_PREFIX });
  docs.get(DOCUMENT_URL, async () => docs.swagger());
  await docs.ready();
  return docs;
}

async function neverCalled(): Promise<never> {
  throw new Error('a documentation copy of a route was called');
}
