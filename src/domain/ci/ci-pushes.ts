import type { PushEvents } from '../repos/push-events.ts';
import type { RunTriggerService } from './run-trigger.service.ts';

/** CI reads the workflows at each new tip and starts the `on: push` runs that match. */
export function subscribeCiToPushes(
  pushes: Pick<PushEvents, 'subscribe'>,
  triggers: Pick<RunTriggerService, 'onPush'>,
): () => void {
  return pushes.subscribe(async (push) => {
    await triggers.onPush(push);
  });
}
