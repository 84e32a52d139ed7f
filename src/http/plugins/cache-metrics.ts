import { Counter, Gauge, type Registry } from 'prom-client';
import type { CacheReading } from '../../lib/cache-registry.ts';

/**
 * Exposes every declared cache of this process on `registry`, read at scrape time: its entries
 * now, and its lookups that were answered from memory or not, labelled by cache name and by its
 * freshness rule. The hit rate is `hits ÷ (hits + misses)` over any window Prometheus takes.
 */
export function registerCacheMetrics(registry: Registry, caches: () => CacheReading[]): void {
  const labelNames = ['cache', 'freshness'];
  const labels = (reading: CacheReading) => ({
    cache: reading.name,
    freshness: reading.freshness,
  });
  new Gauge({
    name: 'kiln_cache_entries',
    help: 'Entries a cache holds now.',
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const reading of caches()) this.set(labels(reading), reading.size);
    },
  });
  for (const [name, help, count] of [
    ['kiln_cache_hits_total', 'Lookups a cache answered from memory.', (r: CacheReading) => r.hits],
    ['kiln_cache_misses_total', 'Lookups a cache could not answer.', (r: CacheReading) => r.misses],
  ] as const) {
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const reading of caches()) this.inc(labels(reading), count(reading));
      },
    });
  }
}
