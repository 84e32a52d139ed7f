import type { EventPublisher } from '../events.ts';
import type { Push } from './push-events.ts';
import type { RepoService } from './repo.service.ts';

/** What `afterPush` started; both settle and neither ever rejects (failures go to `onError`). */
export type PushAftermath = {
  /** The repository's own record is in step with the push (its default branch above all). */
  readonly recorded: Promise<void>;
  /** Every subscriber of the `push` event has had it. */
  readonly reacted: Promise<void>;
};

/**
 * The use case "a push has landed", the one thing the git edge calls once receive-pack is done.
 * Two steps, in order, neither of which can undo the push:
 *
 * 1. the repository's record is brought in step (`RepoService.pushed`): the edge holds the end
 *    of its answer until then, so whoever pushed never sees the record stale;
 * 2. the `push` event is published: its subscribers (registered by `src/wiring/`) have it in
 *    the order they subscribed; they may take long and run after the answer.
 *
 * A failure in step 1 does not skip step 2, and a failing subscriber does not skip the ones
 * after it (see `EventBus.publish`); each failure goes to the `onError` of `afterPush`.
 */
export class PushService {
  readonly #repos: Pick<RepoService, 'pushed'>;
  readonly #events: EventPublisher;
  /** Reactions still running: closing waits for them before what they use goes away. */
  readonly #reacting = new Set<Promise<void>>();

  constructor(deps: { repos: Pick<RepoService, 'pushed'>; events: EventPublisher }) {
    this.#repos = deps.repos;
    this.#events = deps.events;
  }

  /** Runs what follows `push`; a push that changed no ref is nothing to follow. */
  afterPush(push: Push, onError: (error: unknown) => void): PushAftermath {
    if (push.changes.length === 0) {
      const nothing = Promise.resolve();
      return { recorded: nothing, reacted: nothing };
    }
    const report = (error: unknown) => {
      onError(error);
    };
    const recorded = this.#repos.pushed(push.repo, push.changes).catch(report);
    const reacted = recorded.then(() => this.#events.publish('push', push, report)).catch(report);
    this.#reacting.add(reacted);
    void reacted.finally(() => this.#reacting.delete(reacted));
    return { recorded, reacted };
  }

  /**
   * Resolves once every push handed over so far has reached all its listeners. The composition
   * root awaits it on close before draining what the listeners feed (webhook queueing) and
   * before the database and git pools close under them.
   */
  async settle(): Promise<void> {
    while (this.#reacting.size > 0) await Promise.all([...this.#reacting]);
  }
}
