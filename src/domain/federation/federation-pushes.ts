import type { PushEvents } from '../repos/push-events.ts';
import type { Federation } from './federation.ts';

/**
 * Federation announces a push of a public repository to its followers: it only enqueues the
 * work, so the push never waits for another server.
 */
export function subscribeFederationToPushes(
  pushes: Pick<PushEvents, 'subscribe'>,
  federation: Pick<Federation, 'announcePush'>,
): () => void {
  return pushes.subscribe((push) => federation.announcePush(push));
}
