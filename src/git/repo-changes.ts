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
