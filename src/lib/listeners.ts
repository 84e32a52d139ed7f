/**
 * A list of reactions to one kind of event, for a service to announce what it did without
 * knowing who listens (the composition root subscribes). `emit` runs every listener and never
 * throws: a listener's failure is handed to `onError`, so a reaction can never undo or fail the
 * change it reacts to.
 *
 * @example
 *   const created = new Listeners<Repository>();
 *   created.subscribe(async (repo) => announce(repo));
 *   await created.emit(repo);
 */
export class Listeners<T> {
  readonly #listeners: ((event: T) => Promise<void>)[] = [];
  #onError: (error: unknown) => void = () => {};

  /** Adds a listener; returns what removes it again. */
  subscribe(listener: (event: T) => Promise<void>): () => void {
    this.#listeners.push(listener);
    return () => {
      const at = this.#listeners.indexOf(listener);
      if (at >= 0) this.#listeners.splice(at, 1);
    };
  }

  /** Where listener failures go (by default nowhere). */
  onError(report: (error: unknown) => void): void {
    this.#onError = report;
  }

  async emit(event: T): Promise<void> {
    for (const listener of this.#listeners) {
      try {
        await listener(event);
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}
