import type { PullReview } from './pull-review.types.ts';

/** Who approved and who asked for changes, as a protection rule counts them. */
export type CountedVerdicts = {
  readonly approvedBy: readonly string[];
  readonly rejectedBy: readonly string[];
};

/**
 * The verdicts that count toward a merge: each reviewer's latest approval or request for
 * changes (a later comment review changes nothing), official and not dismissed. With
 * `ignoreStale`, an approval made on another commit than the head no longer counts.
 */
export function countedVerdicts(
  reviews: readonly PullReview[],
  options: { readonly headSha: string; readonly ignoreStale: boolean },
): CountedVerdicts {
  const latest = new Map<string, PullReview>();
  for (const review of reviews) {
    if (review.state !== 'APPROVED' && review.state !== 'REQUEST_CHANGES') continue;
    const before = latest.get(review.reviewerId);
    const at = (r: PullReview) => (r.submittedAt ?? r.createdAt).getTime();
    if (!before || at(review) >= at(before)) latest.set(review.reviewerId, review);
  }
  const approvedBy: string[] = [];
  const rejectedBy: string[] = [];
  for (const review of latest.values()) {
    if (!review.official || review.dismissed) continue;
    if (review.state === 'REQUEST_CHANGES') rejectedBy.push(review.reviewerId);
    else if (!options.ignoreStale || review.commitId === options.headSha) {
      approvedBy.push(review.reviewerId);
    }
  }
  return { approvedBy, rejectedBy };
}
