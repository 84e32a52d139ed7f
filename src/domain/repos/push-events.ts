import type { RefChange } from '../../git/refs.ts';
import type { User } from '../users/user.types.ts';
import type { Repository } from './repo.types.ts';

/** What a successful push changed: every ref that moved, old → new (null = absent). */
export type Push = {
  readonly repo: Repository;
  readonly pusher: User;
  readonly changes: readonly RefChange[];
};

export type PushListener = (push: Push) => Promise<void>;

/**
 * The one place pushes are announced. The smart HTTP edge publishes after receive-pack has
 * finished; pull requests (head refs) and CI subscribe without the transport knowing them.
 * A failing listener is reported, never allowed to undo or hide the push.
 */
export class PushEvents {
  readonly #listeners: PushListener[] = [];
  readonly #onError: (error: unknown, push: Push) => void;

  constructor(onError: (error: unknown, push: Push) => void = () => {}) {
    this.#onError = onError;
  }

  subscribe(listener: PushListener): void {
    this.#listeners.push(listener);
  }

  async publish(push: Push): Promise<void> {
    if (push.changes.length === 0) return;
    for (const listener of this.#listeners) {
      try {
        await listener(push);
      } catch (error) {
        this.#onError(error, push);
      }
    }
  }
}
