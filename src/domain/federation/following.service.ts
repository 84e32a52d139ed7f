import { randomUUID } from 'node:crypto';
import { isRecord } from '../../lib/narrow.ts';
import { Invalid } from '../errors.ts';
import type { User } from '../users/user.types.ts';
import type { ActorResolver } from './actor-resolver.ts';
import type { DeliveryMessage } from './delivery.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { LocalActors } from './local-actors.ts';
import type { KyselyMessageQueue } from './message-queue.ts';
import { idOf, type RemoteActors } from './remote-actors.ts';

const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';
/** How long activities received from followed actors are kept for their followers. */
const RECEIVED_TTL_MS = 30 * 86_400_000;

/** A remote actor a local user follows, and whether it has accepted. */
export type Following = {
  readonly actor: string;
  readonly state: 'pending' | 'accepted' | 'rejected';
};

/** An activity a followed actor sent, as kept for a local follower. */
export type ReceivedActivity = {
  readonly id: string;
  readonly type: string;
  readonly actor: string;
  readonly activity: unknown;
};

/**
 * The other direction: local users following and starring remote actors (other Kiln instances,
 * Forgejo, Mastodon). A follow is sent, signed by the user, and stays pending until the remote
 * actor's `Accept` arrives; what followed actors publish afterwards is kept for a month for
 * each local follower; a `Reject` marks the follow refused. Remote actors are named by URL or by
 * `@user@host` (see ActorResolver).
 */
export class FollowingService {
  readonly #actors: LocalActors;
  readonly #remote: RemoteActors;
  readonly #resolver: ActorResolver;
  readonly #kv: KyselyKvStore;
  readonly #queue: KyselyMessageQueue;

  constructor(deps: {
    actors: LocalActors;
    remote: RemoteActors;
    resolver: ActorResolver;
    kv: KyselyKvStore;
    queue: KyselyMessageQueue;
  }) {
    this.#actors = deps.actors;
    this.#remote = deps.remote;
    this.#resolver = deps.resolver;
    this.#kv = deps.kv;
    this.#queue = deps.queue;
  }

  /** Sends a `Follow` from `user` to the actor `target` names; returns the actor's id. */
  async follow(user: User, target: string): Promise<string> {
    const remoteId = await this.resolve(target);
    const follower = this.#actors.ofAccount(user);
    const follow = {
      '@context': AS_CONTEXT,
      id: `${follower.id}#follows/${randomUUID()}`,
      type: 'Follow',
      actor: follower.id,
      object: remoteId,
    };
    await this.#kv.setFor(
      ['following', follower.key, remoteId],
      { state: 'pending', follow: follow.id },
      null,
    );
    await this.#kv.setFor(['followed-by', remoteId, follower.key], true, null);
    await this.#send(follower.key, follower.id, remoteId, follow);
    return remoteId;
  }

  /** Sends `Undo{Follow}` and forgets the follow. */
  async unfollow(user: User, target: string): Promise<void> {
    const remoteId = await this.resolve(target);
    const follower = this.#actors.ofAccount(user);
    const known = await this.#kv.get<{ follow: string }>(['following', follower.key, remoteId]);
    await this.#kv.delete(['following', follower.key, remoteId]);
    await this.#kv.delete(['followed-by', remoteId, follower.key]);
    const follow = { id: known?.follow, type: 'Follow', actor: follower.id, object: remoteId };
    await this.#send(follower.key, follower.id, remoteId, {
      '@context': AS_CONTEXT,
      id: `${follower.id}#undo/${randomUUID()}`,
      type: 'Undo',
      actor: follower.id,
      object: follow,
    });
  }

  /** Stars a remote repository (`Like`), or takes the star back (`Undo{Like}`). */
  async star(user: User, target: string, on: boolean): Promise<void> {
    const remoteId = await this.resolve(target);
    const liker = this.#actors.ofAccount(user);
    // Each Like gets an id of its own (an undone id is ignored if it comes again); the last one
    // is remembered so that the Undo names it.
    const last = await this.#kv.get<string>(['liked', liker.key, remoteId]);
    const like = {
      id: on ? `${liker.id}#likes/${randomUUID()}` : last,
      type: 'Like',
      actor: liker.id,
      object: remoteId,
    };
    if (on) await this.#kv.setFor(['liked', liker.key, remoteId], like.id, null);
    else await this.#kv.delete(['liked', liker.key, remoteId]);
    const activity = on
      ? { '@context': AS_CONTEXT, ...like }
      : {
          '@context': AS_CONTEXT,
          id: `${liker.id}#undo/${randomUUID()}`,
          type: 'Undo',
          actor: liker.id,
          object: like,
        };
    await this.#send(liker.key, liker.id, remoteId, activity);
  }

  async following(user: User): Promise<Following[]> {
    const key = this.#actors.ofAccount(user).key;
    const list: Following[] = [];
    for await (const entry of this.#kv.list(['following', key])) {
      const actor = entry.key[2];
      const { state } = entry.value as { state: Following['state'] };
      if (actor) list.push({ actor, state });
    }
    return list;
  }

  async received(user: User): Promise<ReceivedActivity[]> {
    const key = this.#actors.ofAccount(user).key;
    const list: ReceivedActivity[] = [];
    for await (const entry of this.#kv.list(['received', key]))
      list.push(entry.value as ReceivedActivity);
    return list;
  }

  /**
   * The remote side's answer to one of our follows: `Accept` puts it in effect, `Reject` marks
   * it refused. An `Accept` must come from the followed actor itself; a `Reject` may also come
   * from another actor of its server (a server refuses follows of private or missing actors with
   * its own actor). Only a follow still on record changes: an answer naming another follow (by
   * id, when it names one) changes nothing.
   */
  async answered(sender: string, answer: Record<string, unknown>, state: 'accepted' | 'rejected') {
    const follow = answer.object;
    if (!isRecord(follow)) return;
    const ref = this.#actors.urls.parse(idOf(follow.actor) ?? '');
    if (ref?.kind !== 'user') return;
    const local = await this.#actors.get(ref).catch(() => undefined);
    if (!local) return;
    const followed = idOf(follow.object);
    const answering =
      state === 'rejected' && followed !== undefined && sameHost(followed, sender)
        ? followed
        : sender;
    const key = ['following', local.key, answering] as const;
    const known = await this.#kv.get<{ follow: string }>(key);
    const followId = idOf(follow);
    if (!known || (followId !== undefined && followId !== known.follow)) return;
    await this.#kv.setFor(key, { ...known, state }, null);
    // A refused follow brings nothing: stop keeping what the actor publishes for this user.
    if (state === 'rejected') await this.#kv.delete(['followed-by', answering, local.key]);
  }

  /** The remote repositories `user` has starred. */
  async starred(user: User): Promise<string[]> {
    const key = this.#actors.ofAccount(user).key;
    const list: string[] = [];
    for await (const entry of this.#kv.list(['liked', key])) {
      if (entry.key[2]) list.push(entry.key[2]);
    }
    return list;
  }

  /** Keeps what a followed actor published for each local follower (others are dropped). */
  async delivered(sender: string, activity: Record<string, unknown>): Promise<void> {
    const id = idOf(activity);
    if (!id || typeof activity.type !== 'string') return;
    for await (const entry of this.#kv.list(['followed-by', sender])) {
      const local = entry.key[2];
      if (!local) continue;
      const kept: ReceivedActivity = { id, type: activity.type, actor: sender, activity };
      await this.#kv.setFor(['received', local, id], kept, RECEIVED_TTL_MS);
    }
  }

  /**
   * A followed actor withdrew something (`Delete`): itself — it is gone or no longer public
   * where it lives, so the follow ends and nothing it sent is kept — or one of its objects, whose
   * activities are no longer kept. What another server took back is not shown here either.
   */
  async withdrawn(sender: string, object: string): Promise<void> {
    for await (const entry of this.#kv.list(['followed-by', sender])) {
      const local = entry.key[2];
      if (!local) continue;
      for await (const kept of this.#kv.list(['received', local])) {
        const { actor, activity } = kept.value as ReceivedActivity;
        const about = (activity as { object?: unknown } | null)?.object;
        if (actor === sender && (object === sender || idOf(about) === object)) {
          await this.#kv.delete(kept.key);
        }
      }
      if (object !== sender) continue;
      await this.#kv.delete(['following', local, sender]);
      await this.#kv.delete(entry.key);
    }
  }

  /** The actor id a URL or `@user@host` handle names (see ActorResolver). */
  resolve(target: string): Promise<string> {
    return this.#resolver.resolve(target);
  }

  async #send(signer: string, signerId: string, remoteId: string, activity: object) {
    const remote = await this.#remote.get(remoteId).catch((error: unknown) => {
      throw new Invalid(`${remoteId} has no inbox Kiln can deliver to`, { cause: error });
    });
    const message: DeliveryMessage = {
      kind: 'deliver',
      signer,
      signerId,
      inbox: remote.inbox,
      activity,
    };
    await this.#queue.enqueue(message);
  }
}

function sameHost(a: string, b: string): boolean {
  return URL.canParse(a) && URL.canParse(b) && new URL(a).host === new URL(b).host;
}
