import { randomUUID } from 'node:crypto';
import { isRecord } from '../../lib/narrow.ts';
import { visibleToAnyone } from '../repos/repo.policy.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { Account } from '../users/user.types.ts';
import { queueToFollowers } from './fan-out.ts';
import type { FollowersStore } from './followers.store.ts';
import type { LocalActor, LocalActors } from './local-actors.ts';
import type { KyselyMessageQueue } from './message-queue.ts';
import type { OutboxStore } from './outbox.store.ts';
import { deleteActivity, subjectOf } from './vocabulary.ts';

/** Repositories read per page when an organisation withdraws all of its own. */
const PAGE = 200;

/**
 * What federation takes back when something stops being what an anonymous visitor may see: a
 * public repository made private or deleted, a public organisation made private or deleted.
 *
 * The withdrawn actor sends its followers one `Delete` of itself (a `Tombstone`), which
 * ActivityPub servers take to remove the actor and everything it published; an owner's notes
 * about a withdrawn repository are deleted one by one (`Delete{Tombstone}` of each note) to the
 * owner's followers. The deliveries go through the queue like any other, signed with the
 * withdrawn actor's key (kept for that, and known to its followers from when they followed).
 * Its outbox and followers are then forgotten here: made public again it starts afresh, and
 * nobody who was told it is gone hears from it unless they follow it again.
 */
/** What a withdrawal reads and writes. */
export type WithdrawalDeps = {
  readonly actors: LocalActors;
  readonly repos: Pick<RepoService, 'listAll'>;
  readonly followers: FollowersStore;
  readonly outbox: OutboxStore;
  readonly queue: KyselyMessageQueue;
  /** Tells the upstream elsewhere of a fork that is withdrawn (RemoteForksService). */
  readonly forks?: { withdrawn(repo: Repository): Promise<void> } | undefined;
};

export class Withdrawal {
  readonly #deps: WithdrawalDeps;

  constructor(deps: WithdrawalDeps) {
    this.#deps = deps;
  }

  /** After a repository changed: withdraws it when it was public and is no longer. */
  async repoChanged(before: Repository, after: Repository): Promise<void> {
    if (visibleToAnyone(before) && !visibleToAnyone(after)) await this.withdrawRepo(before);
  }

  /** After an account changed: withdraws it, and its public repositories, once it is private. */
  async accountChanged(before: Account, after: Account): Promise<void> {
    if (before.private || !after.private) return;
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.#deps.repos.listAll({ offset, limit: PAGE }, { ownerId: before.id });
      for (const repo of page.items) {
        // As it was a moment ago: public, under a visible owner.
        if (!repo.private) await this.withdrawRepo({ ...repo, owner: before });
      }
      if (page.items.length < PAGE) break;
    }
    await this.withdrawAccount(before);
  }

  /** Withdraws a repository as it was while public (deleted, or made private since). */
  async withdrawRepo(repo: Repository): Promise<void> {
    const actor = this.#deps.actors.ofRepo(repo);
    const owner = this.#deps.actors.ofAccount(repo.owner);
    // The owner's notes announcing the repository go first, while its followers are known.
    const notes = await this.#deps.outbox.all(owner.key);
    const about = notes.filter((row) => subjectOf(row.activity) === actor.id);
    for (const row of about) await this.#delete(owner, noteIdOf(row.activity) ?? row.id, 'Note');
    await this.#deps.outbox.remove(about.map((row) => row.id));
    await this.#deps.forks?.withdrawn(repo);
    await this.#withdrawActor(actor, 'Repository');
  }

  /** Withdraws an account's own actor (its repositories are withdrawn separately). */
  async withdrawAccount(account: Account): Promise<void> {
    await this.#withdrawActor(
      this.#deps.actors.ofAccount(account),
      account.kind === 'org' ? 'Organization' : 'Person',
    );
  }

  async #withdrawActor(actor: LocalActor, formerType: string): Promise<void> {
    await this.#delete(actor, actor.id, formerType);
    await this.#deps.outbox.removeActor(actor.key);
    await this.#deps.followers.removeAll(actor.key);
  }

  /** Queues a `Delete` of `object` from `actor` to each of its followers' inboxes once. */
  async #delete(actor: LocalActor, object: string, formerType: string): Promise<void> {
    const activity = deleteActivity({
      id: this.#deps.actors.urls.activity(randomUUID()),
      actor: actor.id,
      followers: this.#deps.actors.endpoints(actor).followers,
      object,
      formerType,
    });
    await queueToFollowers(this.#deps, actor, activity);
  }
}

function noteIdOf(activity: unknown): string | undefined {
  const object = isRecord(activity) ? activity.object : undefined;
  return isRecord(object) && typeof object.id === 'string' ? object.id : undefined;
}
