import type { Repository, VisibleRepo } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { Pull } from './pull.types.ts';

/** What happened to a pull request, in the words of `on: pull_request: types`. */
export type PullAction = 'opened' | 'synchronize' | 'reopened' | 'closed';

/** Something that happened to a pull request, as workflows (`on: pull_request`) name it. */
export type PullEvent = {
  readonly action: PullAction;
  readonly base: Repository;
  /** The repository the head branch lives in (the base itself, or a fork). */
  readonly head: Repository;
  readonly pull: Pull;
  /** Who caused it: the author on open, the pusher on synchronize, the editor on close/reopen. */
  readonly actor: { readonly id: string; readonly handle: string };
};

/** A later change to a pull: its state, its text, or its merge. */
export type PullChange = {
  readonly action: 'closed' | 'reopened' | 'edited' | 'merged';
  /** The pull as it is after the change, in its base repository. */
  readonly context: {
    readonly base: VisibleRepo;
    readonly head: Repository | null;
    readonly pull: Pull;
  };
  readonly actor: User;
};

export type PullListener = (event: PullEvent) => Promise<void>;

/**
 * Pull request events for whatever reacts to them (CI today), subscribed in the composition root
 * so that `PullService` does not know its listeners. Listeners run after the pull is stored and
 * its head recorded; one failing does not stop the others, and never undoes the change.
 */
export class PullEvents {
  readonly #listeners: PullListener[] = [];

  subscribe(listener: PullListener): void {
    this.#listeners.push(listener);
  }

  /** Runs every listener; resolves once all have run, reporting failures to `onError`. */
  async publish(event: PullEvent, onError: (error: unknown) => void): Promise<void> {
    for (const listener of this.#listeners) {
      try {
        await listener(event);
      } catch (error) {
        onError(error);
      }
    }
  }
}
