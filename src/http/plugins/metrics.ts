import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts an answer sent outside Fastify's reply (a hijacked one), as onResponse would. */
    countResponse(request: FastifyRequest, statusCode: number, elapsedMs: number): void;
  }
}

import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics at /metrics: request counts and latency by route template (never by raw
 * URL, which would let clients mint unbounded label values), plus the process defaults.
 */
export function registerMetrics(server: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'kiln_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'kiln_http_request_duration_seconds',
    help: 'HTTP request latency by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  // prom-client sorts and joins the label names on every call; the labelled series are looked
  // up once per method, route and status instead (a bounded set: routes are templates).
  type Series = {
    requests: ReturnType<typeof requests.labels>;
    duration: ReturnType<typeof duration.labels>;
  };
  const series = new Map<string, Series>();
  const count = (request: FastifyRequest, statusCode: number, elapsedMs: number) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const method = request.method;
    const key = `${method} ${statusCode} ${route}`;
    let found = series.get(key);
    if (found === undefined) {
      found = {
        requests: requests.labels({ method, route, status: String(statusCode) }),
        duration: duration.labels({ method, route }),
      };
      series.set(key, found);
    }
    found.requests.inc();
    found.duration.observe(elapsedMs / 1000);
  };
  server.addHook('onResponse', (request, reply, done) => {
    count(request, reply.statusCode, reply.elapsedTime);
    done();
  });
  server.decorate('countResponse', count);

  server.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    reply.header('Content-Type', registry.contentType);
    return registry.metrics();
  });
  return registry;
}
