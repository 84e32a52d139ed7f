import type { PullEvents } from '../pulls/pull-events.ts';
import { pullTriggerOf } from './pull-trigger.ts';
import type { RunTriggerService } from './run-trigger.service.ts';

/** CI starts the base repository's `on: pull_request` runs that a pull request change matches. */
export function subscribeCiToPulls(
  pulls: Pick<PullEvents, 'subscribe'>,
  triggers: Pick<RunTriggerService, 'onPull'>,
): () => void {
  return pulls.subscribe(async (event) => {
    const trigger = pullTriggerOf(event);
    if (trigger) await triggers.onPull(trigger);
  });
}
