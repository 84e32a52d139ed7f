import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app.ts';

/** `GET /healthz`: 200 `ok` when the database answers and the data dir is writable. */
export function registerHealth(server: FastifyInstance, app: App): void {
  server.get('/healthz', { logLevel: 'warn' }, async (request, reply) => {
    try {
      await app.database.ping();
      await access(app.dataDir, constants.R_OK | constants.W_OK);
    } catch (error) {
      request.log.warn({ err: error }, 'health check failed');
      return reply.status(503).type('text/plain').send('unavailable');
    }
    return reply.type('text/plain').send('ok');
  });
}
