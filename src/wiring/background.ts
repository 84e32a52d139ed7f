import type { Config } from '../config/config.ts';
import { startZombieSweep } from '../domain/ci/zombie-sweep.ts';
import type { DomainServices } from '../domain/services.ts';
import type { DeliveryWorker } from '../domain/webhooks/delivery-worker.ts';

type BackgroundParts = {
  readonly config: Config;
  readonly services: Pick<
    DomainServices,
    'ciTasks' | 'ciSchedules' | 'ciReports' | 'ciCaches' | 'ciArtifacts' | 'lfs'
  >;
  readonly webhookWorker: DeliveryWorker;
};

/** The timers and workers of a serving process (see `App.startBackgroundWork`). */
export function startBackgroundWork(parts: BackgroundParts): { stop(): Promise<void> } {
  const { config, services, webhookWorker } = parts;
  webhookWorker.start();
  const zombieSweep = startZombieSweep(
    services.ciTasks,
    config.ci.zombieReclaimIntervalMs,
    (error) => {
      process.stderr.write(`kiln: CI zombie sweep failed: ${String(error)}\n`);
    },
    async () => {
      await services.ciReports.expireLogs();
      await services.ciCaches.sweep();
      await services.ciArtifacts.expire();
      await services.lfs.removeOrphans();
    },
  );
  // Every 15 s, so each minute is claimed early in it by whichever replica ticks first.
  const scheduleTimer = setInterval(() => {
    services.ciSchedules.tick().catch((error: unknown) => {
      process.stderr.write(`kiln: CI schedule failed: ${String(error)}\n`);
    });
  }, 15_000);
  scheduleTimer.unref();
  return {
    async stop() {
      clearInterval(scheduleTimer);
      await zombieSweep.stop();
    },
  };
}
