import type { FastifyInstance } from 'fastify';
import type { App } from '../../../app.ts';
import { ServerVersionSchema } from '../../../present/schemas/common.ts';

export function registerMiscRoutes(server: FastifyInstance, app: App): void {
  const body = { version: app.config.forgeApiVersion };
  server.get(
    '/version',
    {
      schema: {
        summary: 'The forge API version clients gate features on (kept below 1.14.0)',
        tags: ['miscellaneous'],
        response: { 200: ServerVersionSchema },
      },
    },
    async () => body,
  );
}
