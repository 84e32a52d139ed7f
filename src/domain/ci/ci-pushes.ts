import type { PushEvents } from '../repos/push-events.ts';
import { isActionsBot } from '../users/actions-bot.ts';
import type { RunTriggerService } from './run-trigger.service.ts';

/**
 * CI reads the workflows at each new tip and starts the `on: push` runs that match — except
 * for a push made with a task token (the actions bot), which starts nothing, as in Gitea and
 * GitHub: a workflow that pushes would otherwise trigger itself without end. Webhooks and the
 * other subscribers still see that push.
 */
export function subscribeCiToPushes(
  pushes: Pick<PushEvents, 'subscribe'>,
  triggers: Pick<RunTriggerService, 'onPush'>,
): () => void {
  return pushes.subscribe(async (push) => {
    if (isActionsBot(push.pusher)) return;
    await triggers.onPush(push);
  });
}
