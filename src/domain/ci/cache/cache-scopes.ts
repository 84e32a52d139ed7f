/** What decides a run's cache scopes: its ref and event, and for pull requests their base. */
export type CacheRunFacts = {
  /** The run's ref: `refs/heads/x`, `refs/tags/v1`, `refs/pull/N/head`. */
  readonly ref: string;
  /** The pull request's base branch name (empty when the run is not for a pull request). */
  readonly baseRef: string;
  /** The run is for a pull request from a fork. */
  readonly forkPull: boolean;
  /** The repository's default branch name. */
  readonly defaultBranch: string;
};

/** Where a run writes its cache entries and, in order, the scopes it reads them from. */
export type CacheScopes = { readonly write: string; readonly read: readonly string[] };

/** A pull request's run: its writes stay under the pull's own ref. */
function isPullRef(ref: string): boolean {
  return ref.startsWith('refs/pull/');
}

/**
 * GitHub's cache scoping. Every run writes under its own ref. It reads its own ref first, then —
 * for a pull request — its base branch, then the default branch. The invariant this keeps: an
 * entry is read only by runs of its own ref, or by runs whose base or default branch that ref
 * is, so what a pull request writes (under `refs/pull/N/…`, never a branch) is never read by its
 * base or any other branch. A pull request from a fork reads only its base branch: not even its
 * own earlier entries, which another fork's code could not have written but which a stranger's
 * workflow chose the contents of.
 */
export function cacheScopesOf(run: CacheRunFacts): CacheScopes {
  const base = run.baseRef === '' ? undefined : `refs/heads/${run.baseRef}`;
  if (run.forkPull) return { write: run.ref, read: base ? [base] : [] };
  const read = [run.ref];
  if (isPullRef(run.ref) && base) read.push(base);
  read.push(`refs/heads/${run.defaultBranch}`);
  return { write: run.ref, read: [...new Set(read)] };
}
