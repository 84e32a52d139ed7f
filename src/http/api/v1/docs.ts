import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app.ts';
import { KILN_VERSION } from '../../../version.ts';

/**
 * The OpenAPI document of `/api/v1`, built from the routes' TypeBox schemas: the UI at
 * `/api/swagger`, the JSON at `/api/v1/swagger.json`. Only tagged (API) routes are listed.
 */
export async function registerApiDocs(server: FastifyInstance, app: App): Promise<void> {
  await server.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Kiln API',
        description: 'Gitea-compatible REST API of Kiln.',
        version: app.config.forgeApiVersion,
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
  await server.register(swaggerUi, { routePrefix: '/api/swagger', logLevel: 'warn' });
  server.get('/api/v1/swagger.json', { logLevel: 'warn' }, async () => server.swagger());
}
