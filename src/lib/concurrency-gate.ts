/** Frees the slot taken by `ConcurrencyGate.enter`; calling it again does nothing. */
export type Release = () => void;

export type GateLimits = {
  /** How many may be inside at once. */
  readonly maxActive: number;
  /** How many may wait for a slot; one more is turned away at once. */
  readonly maxWaiting: number;
  /** How long one may wait before it is turned away. */
  readonly maxWaitMs: number;
};

type Waiter = { readonly admit: (release: Release) => void; readonly timer: NodeJS.Timeout };

/**
 * A counting semaphore with a short, bounded queue: at most `maxActive` holders, at most
 * `maxWaiting` waiting (first come, first served), none waiting longer than `maxWaitMs`. Whoever
 * cannot get in gets `undefined` and should be told to come back later, so that a burst costs a
 * bounded amount of work and memory instead of piling up.
 *
 * @example
 *   const release = await gate.enter();
 *   if (!release) return busy();
 *   try { await work(); } finally { release(); }
 */
export class ConcurrencyGate {
  readonly #limits: GateLimits;
  readonly #waiting: Waiter[] = [];
  #active = 0;

  constructor(limits: GateLimits) {
    this.#limits = limits;
  }

  /** Holders right now. */
  get active(): number {
    return this.#active;
  }

  /** Waiting right now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** What to tell one turned away about when to come back: the longest wait, in whole seconds. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.#limits.maxWaitMs / 1000));
  }

  /** A slot (its release function), or undefined when the gate is full and so is its queue. */
  enter(): Promise<Release | undefined> {
    if (this.#active < this.#limits.maxActive) return Promise.resolve(this.#take());
    if (this.#waiting.length >= this.#limits.maxWaiting || this.#limits.maxWaitMs <= 0) {
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        admit: resolve,
        timer: setTimeout(() => {
          const index = this.#waiting.indexOf(waiter);
          if (index >= 0) this.#waiting.splice(index, 1);
          resolve(undefined);
        }, this.#limits.maxWaitMs),
      };
      this.#waiting.push(waiter);
    });
  }

  #take(): Release {
    this.#active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active--;
      const next = this.#waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.admit(this.#take());
      }
    };
  }
}
