import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../config/config.ts';
import { ServerVersionSchema } from '../../../present/schemas/common.ts';

/** What `/version` answers from: the forge API version clients are told. */
export type MiscRouteDeps = { readonly config: Pick<Config, 'forgeApiVersion'> };

/** `/version`. */
export function registerMiscRoutes(server: FastifyInstance, deps: MiscRouteDeps): void {
  const body = { version: deps.config.forgeApiVersion };
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
