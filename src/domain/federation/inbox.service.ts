import { randomUUID } from 'node:crypto';
import { isRecord } from '../../lib/narrow.ts';
import { isDomainError } from '../errors.ts';
import type { DeliveryMessage } from './delivery.ts';
import type { FollowersStore } from './followers.store.ts';
import type { FollowingService } from './following.service.ts';
import type { OfferMessage } from './incoming-pulls.service.ts';
import type { TicketUpdateMessage } from './incoming-updates.ts';
import type { InstancesService } from './instances.service.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { LocalActor, LocalActors } from './local-actors.ts';
import type { KyselyMessageQueue } from './message-queue.ts';
import type { OutgoingPullsService } from './outgoing-pulls.service.ts';
import type { ProposalNotes } from './proposal-notes.ts';
import { idOf, type RemoteActors } from './remote-actors.ts';
import type { RemoteForksService } from './remote-forks.service.ts';
import type { RemoteStarsStore } from './remote-stars.store.ts';
import { acceptActivity, rejectActivity } from './vocabulary.ts';

/** How long an undone activity's id is remembered, so its late arrival changes nothing. */
const UNDONE_TTL_MS = 30 * 86_400_000;

/** An activity whose signature has been checked: `sender` is the actor that signed it. */
export type VerifiedActivity = {
  readonly sender: string;
  readonly activity: Record<string, unknown>;
};

/**
 * What Kiln does with activities it receives. Every change is idempotent: a replayed `Follow`
 * or `Like` keeps one follower or one star, an `Undo` of something never done changes nothing,
 * and an activity that arrives after its own `Undo` (out of order) is ignored, because undone
 * ids are remembered for a month. A `Follow` of something that cannot be followed (private,
 * missing, the server itself) is answered with a `Reject`. Types Kiln does not act on are
 * accepted and ignored.
 */
export class InboxService {
  readonly #actors: LocalActors;
  readonly #remote: RemoteActors;
  readonly #followers: FollowersStore;
  readonly #stars: RemoteStarsStore;
  readonly #kv: KyselyKvStore;
  readonly #queue: KyselyMessageQueue;
  readonly #following: FollowingService;
  readonly #instances: Pick<InstancesService, 'seen'>;
  readonly #forks: Pick<RemoteForksService, 'created' | 'deleted'>;
  readonly #proposals: Pick<OutgoingPullsService, 'answered'> | undefined;
  readonly #notes: Pick<ProposalNotes, 'received' | 'updated' | 'deleted'> | undefined;

  constructor(deps: {
    actors: LocalActors;
    remote: RemoteActors;
    followers: FollowersStore;
    stars: RemoteStarsStore;
    kv: KyselyKvStore;
    queue: KyselyMessageQueue;
    following: FollowingService;
    instances: Pick<InstancesService, 'seen'>;
    forks: Pick<RemoteForksService, 'created' | 'deleted'>;
    /** Pull requests proposed from here to other servers: their answers. */
    proposals?: Pick<OutgoingPullsService, 'answered'>;
    /** Review comments on those pull requests, as their upstreams send them. */
    notes?: Pick<ProposalNotes, 'received' | 'updated' | 'deleted'>;
  }) {
    this.#notes = deps.notes;
    this.#forks = deps.forks;
    this.#proposals = deps.proposals;
    this.#actors = deps.actors;
    this.#remote = deps.remote;
    this.#followers = deps.followers;
    this.#stars = deps.stars;
    this.#kv = deps.kv;
    this.#queue = deps.queue;
    this.#following = deps.following;
    this.#instances = deps.instances;
  }

  async receive({ sender, activity }: VerifiedActivity): Promise<void> {
    await this.#instances.seen(sender);
    const id = idOf(activity);
    if (id && (await this.#kv.get(['undone', id])) !== undefined) return;
    switch (activity.type) {
      case 'Follow':
        return this.#follow(sender, activity);
      case 'Like':
        return this.#like(sender, activity, true);
      case 'Undo':
        return this.#undo(sender, activity);
      case 'Delete': {
        const object = idOf(activity.object);
        // A note about a proposal from here, taken back by the upstream that sent it.
        if (object !== undefined && (await this.#notes?.deleted(sender, object))) return;
        // An actor deleting itself: its follows and stars go with it.
        if (object === sender) {
          await this.#followers.removeFollower(sender);
          await this.#stars.removeActor(sender);
          await this.#forks.deleted(sender);
        }
        if (object !== undefined) await this.#following.withdrawn(sender, object);
        return;
      }
      case 'Offer':
        // A pull request proposed to one of ours: fetching its branch takes longer than an
        // inbox request may, so the queue's worker takes it and answers with Accept or Reject.
        await this.#queue.enqueue({ kind: 'offer', sender, activity } satisfies OfferMessage);
        return;
      case 'Accept':
        if (await this.#proposals?.answered(sender, activity)) return;
        return this.#following.answered(sender, activity, 'accepted');
      case 'Reject':
        if (await this.#proposals?.answered(sender, activity)) return;
        return this.#following.answered(sender, activity, 'rejected');
      case 'Resolve':
        // A pull request proposed from here was merged upstream.
        await this.#proposals?.answered(sender, activity);
        return;
      case 'Update':
        // New commits on a pull request proposed here: the worker fetches them. Any other
        // Update is kept for the sender's followers.
        if (isRecord(activity.object) && activity.object.type === 'Ticket') {
          const update: TicketUpdateMessage = {
            kind: 'ticket-update',
            sender,
            activity,
            receivedAt: Date.now(),
          };
          await this.#queue.enqueue(update);
          return;
        }
        // An edited comment about a proposal from here.
        if (await this.#notes?.updated(sender, activity)) return;
        return this.#following.delivered(sender, activity);
      case 'Create':
        // A review comment on a pull request proposed from here is kept beside the proposal.
        if (await this.#notes?.received(sender, activity)) return;
        // A fork of one of ours is listed; any Create is also kept for the sender's followers.
        await this.#forks.created(sender, activity);
        return this.#following.delivered(sender, activity);
      default:
        // Whatever else a followed actor publishes (Push, Create, Announce…) is kept for its
        // local followers; from anyone else it is dropped.
        return this.#following.delivered(sender, activity);
    }
  }

  async #follow(sender: string, follow: Record<string, unknown>): Promise<void> {
    const target = await this.#local(idOf(follow.object));
    const remote = await this.#remote.get(sender);
    if (!target || target.kind === 'instance') {
      // Nothing here can be followed under that id: a private or missing actor (the two look
      // the same), or the server itself. The server's own actor says no, so that the answer
      // tells nothing a stranger may not know.
      const instance = await this.#actors.get({ kind: 'instance' });
      await this.#queue.enqueue({
        kind: 'deliver',
        signer: instance.key,
        signerId: instance.id,
        inbox: remote.inbox,
        activity: rejectActivity(`${instance.id}#rejects/${randomUUID()}`, instance.id, follow),
      } satisfies DeliveryMessage);
      return;
    }
    await this.#followers.add(target.key, {
      follower: remote.id,
      inbox: remote.inbox,
      sharedInbox: remote.sharedInbox,
      host: remote.host,
    });
    const accept: DeliveryMessage = {
      kind: 'deliver',
      signer: target.key,
      signerId: target.id,
      inbox: remote.inbox,
      activity: acceptActivity(`${target.id}#accepts/${randomUUID()}`, target.id, follow),
    };
    await this.#queue.enqueue(accept);
  }

  async #like(sender: string, like: Record<string, unknown>, add: boolean): Promise<void> {
    const target = await this.#local(idOf(like.object));
    if (target?.kind !== 'repo') return;
    if (add) await this.#stars.add(target.repo.id, sender, new URL(sender).host);
    else await this.#stars.remove(target.repo.id, sender);
  }

  async #undo(sender: string, undo: Record<string, unknown>): Promise<void> {
    const inner = undo.object;
    if (!isRecord(inner)) return;
    const undone = inner;
    // One may only undo one's own activities.
    if (idOf(undone.actor) !== sender) return;
    const undoneId = idOf(undone);
    if (undoneId) await this.#kv.setFor(['undone', undoneId], true, UNDONE_TTL_MS);
    if (undone.type === 'Like') return this.#like(sender, undone, false);
    if (undone.type !== 'Follow') return;
    const target = await this.#local(idOf(undone.object));
    if (target) await this.#followers.remove(target.key, sender);
  }

  /** The local actor an id names; undefined when it is not ours, missing or private. */
  async #local(id: string | undefined): Promise<LocalActor | undefined> {
    const ref = id ? this.#actors.urls.parse(id) : undefined;
    if (!ref) return undefined;
    try {
      return await this.#actors.get(ref);
    } catch (error) {
      if (isDomainError(error)) return undefined;
      throw error;
    }
  }
}
