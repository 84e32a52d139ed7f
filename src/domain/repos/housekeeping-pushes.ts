import type { HousekeepingService } from './housekeeping.service.ts';
import type { PushEvents } from './push-events.ts';

/** Housekeeping counts a pushed repository's loose files and queues it; it never waits. */
export function subscribeHousekeepingToPushes(
  pushes: Pick<PushEvents, 'subscribe'>,
  housekeeping: Pick<HousekeepingService, 'afterPush'>,
): () => void {
  return pushes.subscribe(async ({ repo }) => housekeeping.afterPush(repo));
}
