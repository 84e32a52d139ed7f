import type { DeliveryMessage } from './delivery.ts';
import type { FollowersStore } from './followers.store.ts';
import type { LocalActor } from './local-actors.ts';
import type { KyselyMessageQueue } from './message-queue.ts';

/**
 * Queues one signed delivery of `activity` from `actor` per distinct inbox of its followers (a
 * server's shared inbox once): how everything an actor publishes or withdraws leaves.
 */
export async function queueToFollowers(
  deps: { readonly followers: FollowersStore; readonly queue: KyselyMessageQueue },
  actor: LocalActor,
  activity: object,
): Promise<void> {
  const inboxes = new Set(
    (await deps.followers.all(actor.key)).map((follower) => follower.sharedInbox ?? follower.inbox),
  );
  await deps.queue.enqueueMany(
    [...inboxes].map(
      (inbox): DeliveryMessage => ({
        kind: 'deliver',
        signer: actor.key,
        signerId: actor.id,
        inbox,
        activity,
      }),
    ),
  );
}
