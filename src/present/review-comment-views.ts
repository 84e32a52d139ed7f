import type { ReviewComment } from '../domain/pulls/review-comment.service.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import type { DomainServices } from '../domain/services.ts';
import type { ConvertContext } from './context.ts';
import { toApiReviewComment } from './review-comment.ts';
import type { ApiPullReviewComment } from './schemas/pull.ts';

/**
 * Loads the authors of a page of line-review comments with one query and converts them. A
 * comment whose author account is gone is left out rather than shown with a made-up author.
 * Takes a ConvertContext, not a request, so REST and MCP share it.
 */
export async function loadReviewComments(
  services: Pick<DomainServices, 'users'>,
  where: { repo: Repository; number: number },
  comments: readonly ReviewComment[],
  context: ConvertContext,
): Promise<ApiPullReviewComment[]> {
  const authors = await services.users.findManyByIds(comments.map((c) => c.authorId));
  return comments.flatMap((comment) => {
    const author = authors.get(comment.authorId);
    return author ? [toApiReviewComment(comment, { ...where, author }, context)] : [];
  });
}
