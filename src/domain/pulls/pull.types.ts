/** A pull request as stored (a merge request inside Kiln; a pull request on the wire). */
export type Pull = {
  readonly id: string;
  readonly repoId: string;
  readonly number: number;
  readonly title: string;
  /** Kept byte for byte, HTML comments included. */
  readonly body: string;
  readonly state: 'open' | 'closed';
  readonly merged: boolean;
  readonly mergedAt: Date | null;
  readonly mergeCommitSha: string | null;
  readonly mergedById: string | null;
  readonly authorId: string;
  readonly assigneeId: string | null;
  readonly headRepoId: string | null;
  readonly headBranch: string;
  readonly headSha: string;
  readonly baseBranch: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly closedAt: Date | null;
};

export const PULL_SORTS = [
  'newest',
  'oldest',
  'recentupdate',
  'leastupdate',
  'mostcomment',
  'leastcomment',
  'priority',
] as const;
export type PullSort = (typeof PULL_SORTS)[number];
export type PullStateFilter = 'open' | 'closed' | 'all';

/** The full ref in the base repository that always holds the pull's head commit. */
export function pullHeadRef(number: number): string {
  return `refs/pull/${number}/head`;
}

/** Largest body kept: 1 MB, as the product promises. */
export const MAX_PULL_BODY_BYTES = 1024 * 1024;

/**
 * What a pull request proposed from another server may carry: as many commits as a pull's
 * commit list shows, and patches no larger than a page renders a diff from. Larger offers are
 * refused with the reason, so the proposer can split them.
 */
export const PROPOSED_PULL_LIMITS = { maxCommits: 250, maxPatchBytes: 2 * 1024 * 1024 } as const;
