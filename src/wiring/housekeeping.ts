import type { Config } from '../config/config.ts';
import type { Database } from '../db/database.ts';
import type { EventBus } from '../domain/events.ts';
import { HousekeepingService } from '../domain/repos/housekeeping.service.ts';
import { HousekeepingStore } from '../domain/repos/housekeeping.store.ts';
import type { RepoPaths } from '../git/repo-paths.ts';

/**
 * Background repacking of repositories. The store is built on its own because repositories
 * take its leases too: a fork is given its own objects only while housekeeping leaves it alone.
 */
export function buildHousekeeping(config: Config, db: Database['db'], paths: RepoPaths) {
  const store = new HousekeepingStore(db);
  const service = new HousekeepingService({
    store,
    paths,
    settings: config.housekeeping,
    onError: (error) => process.stderr.write(`kiln: housekeeping failed: ${String(error)}\n`),
  });
  return { store, service };
}

/** Housekeeping counts a pushed repository's loose files and queues it; it never waits. */
export function subscribeHousekeeping(
  events: Pick<EventBus, 'subscribe'>,
  housekeeping: Pick<HousekeepingService, 'afterPush'>,
): void {
  events.subscribe('push', async ({ repo }) => housekeeping.afterPush(repo));
}
