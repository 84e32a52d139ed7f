import { BoundedMap } from '../lib/bounded-map.ts';

/**
 * A count of the changes Kiln itself made to repositories on disk: it moves when a git process
 * Kiln started ends (whatever it did), when a ref transaction of the update-ref pool ends, and
 * when a repository directory is put in place or taken away. Facts read from a repository's
 * files may be reused while the count stands still and for at most `REUSE_WINDOW_MS`, so what
 * Kiln changed is seen at once and what others changed (another replica, git run by hand) within
 * that window.
 */
let changes = 0;

/** How long facts read from a repository's files are reused when Kiln changed nothing since. */
export const REUSE_WINDOW_MS = 1;

/** Called after anything Kiln does that may have changed a repository's refs or files. */
export function noteRepositoryChange(): void {
  changes += 1;
}

/** The count, to compare with the one taken when facts were read. */
export function repositoryChanges(): number {
  return changes;
}

/** One reading of a repository's files: when it began, the count then, and what it gives. */
type Reading<T> = { readonly at: number; readonly changes: number; readonly value: Promise<T> };

/** Repositories whose latest reading is remembered; beyond this the oldest are forgotten. */
const REMEMBERED_REPOSITORIES = 10_000;

/**
 * One kind of fact read from repositories' files (their refs, whether they exist), shared by
 * every caller that asks for the same repository within `REUSE_WINDOW_MS` of a reading's start
 * while Kiln changed nothing, whether the reading is still under way or done. Under load one
 * repository is asked for many times a millisecond, and its files cost more to read than the
 * rest of the answer. The count is taken before reading: a change made meanwhile makes the
 * next caller read again. A reading that fails is not shared after it fails.
 *
 * @example
 *   const existence = new RecentReadings<boolean>();
 *   await existence.read(repo.path, () => statBoth(repo));
 */
export class RecentReadings<T> {
  readonly #readings = new BoundedMap<string, Reading<T>>(REMEMBERED_REPOSITORIES);

  /** @param now milliseconds, for tests */
  read(key: string, read: () => Promise<T>, now: number = performance.now()): Promise<T> {
    const count = changes;
    const known = this.#readings.get(key);
    if (known && known.changes === count && now - known.at < REUSE_WINDOW_MS) return known.value;
    const value = read();
    const reading = { at: now, changes: count, value };
    this.#readings.set(key, reading);
    value.catch(() => {
      if (this.#readings.get(key) === reading) this.#readings.delete(key);
    });
    return value;
  }
}
