import { Counter, Gauge, type Registry } from 'prom-client';
import type { HousekeepingStats } from '../../domain/repos/housekeeping.service.ts';

/**
 * Exposes the housekeeping counters of this process on `registry`, read at scrape time, so the
 * service keeps plain numbers and knows nothing of Prometheus. Per process, like every other
 * series: sum them across replicas.
 */
export function registerHousekeepingMetrics(
  registry: Registry,
  stats: () => HousekeepingStats,
): void {
  new Counter({
    name: 'kiln_housekeeping_runs_total',
    help: 'Repository maintenance runs finished, by kind (incremental, full) and outcome.',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [key, count] of Object.entries(stats().runs)) {
        const [kind, outcome] = key.split(':');
        this.inc({ kind, outcome }, count);
      }
    },
  });
  new Counter({
    name: 'kiln_housekeeping_lease_busy_total',
    help: "Runs skipped because another process held the repository's lease.",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stats().leaseBusy);
    },
  });
  new Counter({
    name: 'kiln_housekeeping_duration_seconds_total',
    help: 'Time spent in maintenance runs.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stats().durationSecondsTotal);
    },
  });
  const gauges = {
    kiln_housekeeping_last_duration_seconds: [
      'Duration of the last finished maintenance run.',
      (s: HousekeepingStats) => s.lastDurationSeconds,
    ],
    kiln_housekeeping_running: ['Maintenance runs in progress.', (s) => s.running],
    kiln_housekeeping_queued: ['Repositories waiting for maintenance.', (s) => s.queued],
  } satisfies Record<string, readonly [string, (s: HousekeepingStats) => number]>;
  for (const [name, [help, read]] of Object.entries(gauges)) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(stats()));
      },
    });
  }
}
