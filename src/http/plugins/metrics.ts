import type { FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { RequestSeries } from './request-series.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts an answer sent outside Fastify's reply (a hijacked one), as onResponse would. */
    countResponse(request: FastifyRequest, statusCode: number, elapsedMs: number): void;
  }
}

/**
 * Prometheus metrics at /metrics: request counts and latency by route template (never by raw
 * URL, which would let clients mint unbounded label values), plus the process defaults.
 */
export function registerMetrics(server: FastifyInstance): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const series = new RequestSeries();
  const count = (request: FastifyRequest, statusCode: number, elapsedMs: number) => {
    series.record(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      statusCode,
      elapsedMs / 1000,
    );
  };
  server.addHook('onResponse', (request, reply, done) => {
    count(request, reply.statusCode, reply.elapsedTime);
    done();
  });
  server.decorate('countResponse', count);

  server.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    reply.header('Content-Type', registry.contentType);
    return `${await registry.metrics()}\n${series.exposition()}`;
  });
}
