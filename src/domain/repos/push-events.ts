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
 * finished; whatever reacts to pushes (today pull requests, for their head refs) subscribes
 * without the transport knowing it.
 * A failing listener never undoes the push nor keeps the listeners after it from running; its
 * error comes back to the publisher, which logs it.
 */
export class PushEvents {
  readonly #listeners: PushListener[] = [];

  /** Adds a listener; returns what removes it again. */
  subscribe(listener: PushListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners.indexOf(listener);
      if (at >= 0) this.#listeners.splice(at, 1);
    };
  }

  /**
   * Hands the push to every listener in turn. Rejects, once all have run, with the one error a
   * listener threw, or an `AggregateError` of several.
   */
  async publish(push: Push): Promise<void> {
    if (push.changes.length === 0) return;
    const errors: unknown[] = [];
    // A copy: a listener may remove itself (or another) while the push is handed round.
    for (const listener of [...this.#listeners]) {
      try {
        await listener(push);
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'push listeners failed');
  }
}
