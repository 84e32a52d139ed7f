import { isRecord } from '../../lib/narrow.ts';
import { TokenBuckets } from '../../lib/token-buckets.ts';
import type { BlocksService } from './blocks.service.ts';
import { actorHost } from './blocks.ts';
import type { LocalActors } from './local-actors.ts';
import { idOf } from './remote-actors.ts';

/** Whether a verified activity may go on to the inbox, and if not why. */
export type Admission =
  | { readonly ok: true }
  | { readonly ok: false; readonly why: 'blocked'; readonly reason: string }
  | { readonly ok: false; readonly why: 'flooding'; readonly retryAfterSeconds: number };

const MINUTE_MS = 60_000;

/**
 * What every verified inbox POST passes before anything of it is kept: the sender must not be
 * blocked (for the repository whose inbox it is, when it is one) and must not be sending faster
 * than its bucket, nor its server faster than its own. Buckets count verified senders only, so
 * nobody can spend another server's allowance by naming its actors in unsigned requests; they
 * are held per process (each replica allows as much).
 */
export class InboxGuard {
  readonly #blocks: Pick<BlocksService, 'refusal'>;
  readonly #actors: Pick<LocalActors, 'urls' | 'get'>;
  readonly #perActor: TokenBuckets;
  readonly #perHost: TokenBuckets;

  constructor(deps: {
    blocks: Pick<BlocksService, 'refusal'>;
    actors: Pick<LocalActors, 'urls' | 'get'>;
    /** Activities per minute from one actor, and from all actors of one server. */
    perActorPerMinute: number;
    perHostPerMinute: number;
  }) {
    this.#blocks = deps.blocks;
    this.#actors = deps.actors;
    this.#perActor = new TokenBuckets({ capacity: deps.perActorPerMinute, refillMs: MINUTE_MS });
    this.#perHost = new TokenBuckets({ capacity: deps.perHostPerMinute, refillMs: MINUTE_MS });
  }

  /**
   * Admits or refuses one activity `sender` signed, posted to `repoId`'s inbox if given. A
   * repository's blocks hold for what is posted to its inbox and for what names it (as object,
   * target or context) wherever it is posted, so the shared inbox is no way around them.
   */
  async admit(
    sender: string,
    activity: Record<string, unknown>,
    repoId?: string,
  ): Promise<Admission> {
    const repos = new Set([repoId, ...(await this.#reposNamedBy(activity))]);
    if (repos.size > 1) repos.delete(undefined);
    for (const repo of repos) {
      const refused = await this.#blocks.refusal(sender, repo);
      if (refused) return { ok: false, why: 'blocked', reason: refused.reason };
    }
    const host = actorHost(sender) ?? sender;
    for (const [buckets, key] of [
      [this.#perActor, sender],
      [this.#perHost, host],
    ] as const) {
      const taken = buckets.take(key);
      if (!taken.ok) {
        return { ok: false, why: 'flooding', retryAfterSeconds: taken.retryAfterSeconds };
      }
    }
    return { ok: true };
  }

  /** The local repositories an activity names as its object, target or the object's context. */
  async #reposNamedBy(activity: Record<string, unknown>): Promise<string[]> {
    const object = activity.object;
    const named = [object, activity.target];
    if (isRecord(object)) named.push(object.context, object.target);
    const ids = new Set<string>();
    for (const one of named.slice(0, 4)) {
      const ref = this.#actors.urls.parse(idOf(one) ?? '');
      if (ref?.kind !== 'repo') continue;
      const actor = await this.#actors.get(ref).catch(() => undefined);
      if (actor?.kind === 'repo') ids.add(actor.repo.id);
    }
    return [...ids];
  }
}
