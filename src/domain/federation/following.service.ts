import { randomUUID } from 'node:crypto';
import { Invalid } from '../errors.ts';
import type { User } from '../users/user.types.ts';
import type { DeliveryMessage } from './delivery.ts';
import type { HostPolicy } from './host-policy.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { LocalActors } from './local-actors.ts';
import type { KyselyMessageQueue } from './message-queue.ts';
import { idOf, type RemoteActors } from './remote-actors.ts';
import type { RemoteDocuments } from './remote-documents.ts';

const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';
/** How long activities received from followed actors are kept for their followers. */
const RECEIVED_TTL_MS = 30 * 86_400_000;

/** A remote actor a local user follows, and whether it has accepted. */
export type Following = { readonly actor: string; readonly state: 'pending' | 'accepted' };

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
 * each local follower. Remote actors are named by URL or by `acct:user@host` (WebFinger, over
 * HTTPS as the protocol requires).
 */
export class FollowingService {
  readonly #actors: LocalActors;
  readonly #remote: RemoteActors;
  readonly #documents: RemoteDocuments;
  readonly #kv: KyselyKvStore;
  readonly #queue: KyselyMessageQueue;
  readonly #hosts: HostPolicy;

  constructor(deps: {
    actors: LocalActors;
    remote: RemoteActors;
    documents: RemoteDocuments;
    kv: KyselyKvStore;
    queue: KyselyMessageQueue;
    hosts: HostPolicy;
  }) {
    this.#actors = deps.actors;
    this.#remote = deps.remote;
    this.#documents = deps.documents;
    this.#kv = deps.kv;
    this.#queue = deps.queue;
    this.#hosts = deps.hosts;
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

  /** An `Accept` of one of our follows: the follow is now in effect. */
  async accepted(sender: string, accept: Record<string, unknown>): Promise<void> {
    const follow = accept.object as Record<string, unknown> | string | undefined;
    const followerId = typeof follow === 'object' ? idOf(follow?.actor) : undefined;
    const ref = followerId ? this.#actors.urls.parse(followerId) : undefined;
    if (ref?.kind !== 'user') return;
    const local = await this.#actors.get(ref).catch(() => undefined);
    if (!local) return;
    const known = await this.#kv.get<{ follow: string }>(['following', local.key, sender]);
    if (known) {
      await this.#kv.setFor(
        ['following', local.key, sender],
        { ...known, state: 'accepted' },
        null,
      );
    }
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

  /** The actor id a URL or `acct:` handle names. */
  async resolve(target: string): Promise<string> {
    const acct = /^(?:acct:)?@?([^@\s/]+)@([^@\s/]+)$/.exec(target.trim());
    if (acct) {
      const [, name, host] = acct;
      const resource = `acct:${name}@${host}`;
      const jrd = (await this.#documents.fetchJson(
        `https://${host}/.well-known/webfinger?resource=${encodeURIComponent(resource)}`,
      )) as { links?: { rel?: string; type?: string; href?: string }[] };
      const self = jrd.links?.find(
        (link) => link.rel === 'self' && /activity\+json|ld\+json/.test(link.type ?? ''),
      );
      if (!self?.href) throw new Invalid(`${resource} has no ActivityPub actor`);
      return this.resolve(self.href);
    }
    if (!URL.canParse(target) || !/^https?:$/.test(new URL(target).protocol)) {
      throw new Invalid('name a remote actor by URL or as user@host');
    }
    if (!this.#hosts.permitsUrl(target))
      throw new Invalid('this server does not federate with that one');
    const { document } = await this.#documents.loader(target);
    const id = idOf(document);
    if (!id || new URL(id).host !== new URL(target).host)
      throw new Invalid(`${target} is not an actor`);
    return id;
  }

  async #send(signer: string, signerId: string, remoteId: string, activity: object) {
    const remote = await this.#remote.get(remoteId);
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
