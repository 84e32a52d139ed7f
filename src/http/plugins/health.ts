import type { FastifyInstance } from 'fastify';
import type { DomainServices } from '../../domain/services.ts';

/** What `/healthz` uses. */
export type HealthRouteDeps = { readonly services: Pick<DomainServices, 'health'> };

/** `GET /healthz`: 200 `ok` when the database answers and the data dir is writable. */
export function registerHealth(server: FastifyInstance, deps: HealthRouteDeps): void {
  const { health } = deps.services;
  server.get('/healthz', { logLevel: 'warn' }, async (request, reply) => {
    try {
      await health.check();
    } catch (error) {
      request.log.warn({ err: error }, 'health check failed');
      return reply.status(503).type('text/plain').send('unavailable');
    }
    return reply.type('text/plain').send('ok');
  });
}
