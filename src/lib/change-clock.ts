/**
 * Tells a reader whether what it read may have changed since: what was read at one stamp may be
 * reused while `stamp()` returns the same value. The database has one (db/change-clock.ts), and
 * so do the repositories on disk (git/repo-changes.ts).
 */
export type ChangeClock = {
  /**
   * A number that differs from every earlier one once a write may have been committed since;
   * undefined when that cannot be known, and then nothing read may be reused.
   */
  stamp(): number | undefined;
};

/** A clock that never lets a read be reused: for stores built without the database's clock. */
export const NO_CHANGE_CLOCK: ChangeClock = { stamp: () => undefined };
