import type { PushEvents } from '../repos/push-events.ts';
import type { PullService } from './pull.service.ts';

const BRANCH_PREFIX = 'refs/heads/';

/**
 * Pull requests follow their head branches: every branch a push moved (not deleted) brings the
 * `refs/pull/N/head` of the open pulls it heads to its new tip. Returns the unsubscribe.
 */
export function subscribePullsToPushes(
  pushes: Pick<PushEvents, 'subscribe'>,
  pulls: Pick<PullService, 'onBranchPushed'>,
): () => void {
  return pushes.subscribe(async ({ repo, changes, pusher }) => {
    for (const change of changes) {
      if (change.newSha && change.ref.startsWith(BRANCH_PREFIX)) {
        const branch = change.ref.slice(BRANCH_PREFIX.length);
        await pulls.onBranchPushed(repo, branch, change.newSha, pusher);
      }
    }
  });
}
