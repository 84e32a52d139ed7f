import { BoundedMap } from '../lib/bounded-map.ts';
import { HitCounter } from '../lib/cache-registry.ts';
import type { ChangeClock } from '../lib/change-clock.ts';

/** How long facts read from a repository's files are reused when Kiln changed nothing since. */
export const REUSE_WINDOW_MS = 1;

/**
 * The change clock of the repositories on disk. It moves when a git process Kiln started ends
 * (whatever it did), when a ref transaction of the update-ref pool ends, and when a repository
 * directory is put in place or taken away; and at least every `REUSE_WINDOW_MS`, since others
 * (another replica, git run by hand) change repositories without telling it. So facts read from
 * a repository's files, kept with the stamp they were read at, show what Kiln changed at once
 * and what others changed within that window.
 */
export class RepositoryChangeClock implements ChangeClock {
  #stamp = 0;
  #tickedAt = Number.NEGATIVE_INFINITY;

  /** Called after anything Kiln does that may have changed a repository's refs or files. */
  noteChange(): void {
    this.#stamp += 1;
  }

  /** @param now milliseconds, for tests (a time before the last tick counts as a new one) */
  stamp(now: number = performance.now()): number {
    if (now - this.#tickedAt >= REUSE_WINDOW_MS || now < this.#tickedAt) {
      this.#tickedAt = now;
      this.#stamp += 1;
    }
    return this.#stamp;
  }
}

/**
 * The one clock of this process's repositories. Process-wide rather than handed in, because what
 * moves it is every git process Kiln starts, wherever it starts one; the caches that read it are
 * owned by the composition root (git-caches.ts).
 */
export const repositoryClock = new RepositoryChangeClock();

/** Called after anything Kiln does that may have changed a repository's refs or files. */
export function noteRepositoryChange(): void {
  repositoryClock.noteChange();
}

/** One reading of a repository's files: the clock's stamp when it began, and what it gives. */
type Reading<T> = { readonly stamp: number; readonly value: Promise<T> };

/**
 * One kind of fact read from repositories' files (their refs, whether they exist), shared by
 * every caller that asks for the same repository while the repositories' clock stands still,
 * whether the reading is still under way or done. Under load one repository is asked for many
 * times a millisecond, and its files cost more to read than the rest of the answer. The stamp is
 * taken before reading: a change made meanwhile makes the next caller read again. A reading that
 * fails is not shared after it fails. Bounded: beyond `limit` repositories the oldest go.
 *
 * @example
 *   const existence = new RecentReadings<boolean>(repositoryClock, 10_000);
 *   await existence.read(repo.path, () => statBoth(repo));
 */
export class RecentReadings<T> {
  readonly #readings: BoundedMap<string, Reading<T>>;
  readonly #clock: RepositoryChangeClock;
  /** Readings shared, and those made anew. */
  readonly stats = new HitCounter();

  constructor(clock: RepositoryChangeClock, limit: number) {
    this.#clock = clock;
    this.#readings = new BoundedMap(limit);
  }

  get size(): number {
    return this.#readings.size;
  }

  /** @param now milliseconds, for tests */
  read(key: string, read: () => Promise<T>, now: number = performance.now()): Promise<T> {
    const stamp = this.#clock.stamp(now);
    const known = this.#readings.peek(key);
    if (this.stats.count(known?.stamp === stamp) && known) return known.value;
    const value = read();
    const reading = { stamp, value };
    this.#readings.set(key, reading);
    value.catch(() => {
      if (this.#readings.peek(key) === reading) this.#readings.delete(key);
    });
    return value;
  }
}
