import type { ReviewComment } from '../domain/pulls/review-comment.service.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import type { Account } from '../domain/users/user.types.ts';
import { foldId } from '../lib/ids.ts';
import { rfc3339 } from '../lib/time.ts';
import { type ConvertContext, urlFrom } from './context.ts';
import type { ApiPullReviewComment } from './schemas/pull.ts';
import { toApiUser } from './user.ts';

/** A line-review comment (Kiln's own record; Gitea has none at this path). */
export function toApiReviewComment(
  comment: ReviewComment,
  where: { repo: Repository; number: number; author: Account },
  context: ConvertContext,
): ApiPullReviewComment {
  const repoPath = `${encodeURIComponent(where.repo.owner.handle)}/${encodeURIComponent(where.repo.name)}`;
  const id = foldId(comment.id);
  return {
    // Gitea's order for a review comment's fields first, then the line fields it lacks.
    id,
    body: comment.body,
    user: toApiUser(where.author, context),
    path: comment.path,
    commit_id: comment.commitId,
    original_commit_id: comment.originalCommitId,
    diff_hunk: comment.diffHunk,
    line: comment.line,
    old_line: comment.oldLine,
    side: comment.side,
    in_reply_to_id: comment.inReplyToId === null ? null : foldId(comment.inReplyToId),
    created_at: rfc3339(comment.createdAt),
    updated_at: rfc3339(comment.updatedAt),
    html_url: urlFrom(context, `/repos/${repoPath}/pulls/${where.number}/files#comment-${id}`),
    pull_request_url: urlFrom(context, `/api/v1/repos/${repoPath}/pulls/${where.number}`),
  };
}
