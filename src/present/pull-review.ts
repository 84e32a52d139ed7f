import type { PullReview } from '../domain/pulls/pull-review.types.ts';
import type { ReviewComment } from '../domain/pulls/review-comment.types.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import type { DomainServices } from '../domain/services.ts';
import type { Account } from '../domain/users/user.types.ts';
import { foldId } from '../lib/ids.ts';
import { rfc3339 } from '../lib/time.ts';
import { type ConvertContext, urlFrom } from './context.ts';
import type { ApiGiteaReviewComment, ApiPullReview } from './schemas/pull-review.ts';
import { toApiUser } from './user.ts';

type Where = { readonly repo: Repository; readonly number: number; readonly headSha: string };

function pullPaths(where: Where) {
  const repoPath = `${encodeURIComponent(where.repo.owner.handle)}/${encodeURIComponent(where.repo.name)}`;
  return {
    html: `/${repoPath}/pulls/${where.number}`,
    api: `/api/v1/repos/${repoPath}/pulls/${where.number}`,
  };
}

/**
 * Gitea's PullReview. A review is stale once the pull's head has moved past the commit it was
 * made on; a pending review has no submission time yet, so its creation time stands in.
 */
export function toApiPullReview(
  review: PullReview,
  facts: { reviewer: Account | undefined; comments: number },
  where: Where,
  context: ConvertContext,
): ApiPullReview {
  const paths = pullPaths(where);
  const id = foldId(review.id);
  return {
    id,
    user: facts.reviewer ? toApiUser(facts.reviewer, context) : null,
    team: null,
    state: review.state,
    body: review.body,
    commit_id: review.commitId,
    stale: review.state !== 'PENDING' && review.commitId !== where.headSha,
    official: review.official,
    dismissed: review.dismissed,
    comments_count: facts.comments,
    submitted_at: rfc3339(review.submittedAt ?? review.createdAt),
    updated_at: rfc3339(review.updatedAt),
    html_url: urlFrom(context, `${paths.html}#review-${id}`),
    pull_request_url: urlFrom(context, paths.html),
  };
}

/** Gitea's PullReviewComment: `position` is the new-side line, `original_position` the old. */
export function toApiGiteaReviewComment(
  comment: ReviewComment,
  facts: { author: Account | undefined; resolver: Account | undefined },
  where: Where,
  context: ConvertContext,
): ApiGiteaReviewComment {
  const paths = pullPaths(where);
  const id = foldId(comment.id);
  return {
    id,
    body: comment.body,
    user: facts.author ? toApiUser(facts.author, context) : null,
    resolver: facts.resolver ? toApiUser(facts.resolver, context) : null,
    pull_request_review_id: comment.reviewId === null ? 0 : foldId(comment.reviewId),
    created_at: rfc3339(comment.createdAt),
    updated_at: rfc3339(comment.updatedAt),
    path: comment.path,
    commit_id: comment.commitId,
    original_commit_id: comment.originalCommitId,
    diff_hunk: comment.diffHunk,
    position: comment.line ?? 0,
    original_position: comment.oldLine ?? 0,
    html_url: urlFrom(context, `${paths.html}/files#comment-${id}`),
    pull_request_url: urlFrom(context, paths.html),
  };
}

/** Loads the reviewers and comment counts of reviews with one query each and converts them. */
export async function loadPullReviews(
  services: Pick<DomainServices, 'users' | 'pullReviews'>,
  where: Where,
  reviews: readonly PullReview[],
  context: ConvertContext,
): Promise<ApiPullReview[]> {
  const [reviewers, counts] = await Promise.all([
    services.users.findManyByIds(reviews.map((review) => review.reviewerId)),
    services.pullReviews.commentCounts(reviews),
  ]);
  return reviews.map((review) =>
    toApiPullReview(
      review,
      { reviewer: reviewers.get(review.reviewerId), comments: counts.get(review.id) ?? 0 },
      where,
      context,
    ),
  );
}

/** Loads the authors and resolvers of a review's comments and converts them. */
export async function loadGiteaReviewComments(
  services: Pick<DomainServices, 'users'>,
  where: Where,
  comments: readonly ReviewComment[],
  context: ConvertContext,
): Promise<ApiGiteaReviewComment[]> {
  const ids = comments.flatMap((c) =>
    c.resolvedById ? [c.authorId, c.resolvedById] : [c.authorId],
  );
  const people = await services.users.findManyByIds(ids);
  return comments.map((comment) =>
    toApiGiteaReviewComment(
      comment,
      {
        author: people.get(comment.authorId),
        resolver: comment.resolvedById ? people.get(comment.resolvedById) : undefined,
      },
      where,
      context,
    ),
  );
}
