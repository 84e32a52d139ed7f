import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config } from '../../config/config.ts';
import type { HousekeepingStats } from '../../domain/repos/housekeeping.service.ts';
import type { CacheReading } from '../../lib/cache-registry.ts';
import { parseTrustedProxies } from '../protect/client-ip.ts';
import { mayScrape } from './metrics-access.ts';
import { RequestSeries } from './request-series.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts an answer sent outside Fastify's reply (a hijacked one), as onResponse would. */
    countResponse(request: FastifyRequest, statusCode: number, elapsedMs: number): void;
  }
}

/**
 * Prometheus metrics at /metrics: request counts and latency by route template (never by raw
 * URL, which would let clients mint unbounded label values), plus the process defaults. Only
 * for the operator: other callers get 403 (see `mayScrape`).
 *
 * prom-client, with the process defaults and the housekeeping series, loads with the first scrape
 * the operator is allowed: about 3 MB resident that an instance nobody scrapes never holds. The
 * default series (garbage collections, event-loop lag) therefore count from that scrape on, which
 * Prometheus reads like the counter reset of a restart.
 */
export function registerMetrics(
  server: FastifyInstance,
  config: Config,
  housekeeping: () => HousekeepingStats,
  caches: () => CacheReading[] = () => [],
): void {
  const trusted = parseTrustedProxies(config.trustProxy);
  let registry: Promise<Registry> | undefined;
  const openRegistry = async (): Promise<Registry> => {
    const [prom, { registerHousekeepingMetrics }, { registerCacheMetrics }] = await Promise.all([
      import('prom-client'),
      import('./housekeeping-metrics.ts'),
      import('./cache-metrics.ts'),
    ]);
    const opened = new prom.Registry();
    prom.collectDefaultMetrics({ register: opened });
    registerHousekeepingMetrics(opened, housekeeping);
    registerCacheMetrics(opened, caches);
    return opened;
  };
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

  server.get('/metrics', { logLevel: 'warn' }, async (request, reply) => {
    const scrape = {
      peer: request.socket.remoteAddress,
      forwardedFor: request.headers['x-forwarded-for'],
      authorization: request.headers.authorization,
      headerNames: Object.keys(request.headers),
    };
    if (!mayScrape(scrape, config.metrics, trusted)) {
      return reply
        .status(403)
        .type('text/plain; charset=utf-8')
        .send('Metrics are served to loopback clients and to holders of the metrics token.\n');
    }
    registry ??= openRegistry();
    const opened = await registry;
    reply.header('Content-Type', opened.contentType);
    return `${await opened.metrics()}\n${series.exposition()}`;
  });
}
