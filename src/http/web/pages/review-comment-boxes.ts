import type { PullInContext } from '../../../domain/pulls/pull.service.ts';
import type { ReviewComment } from '../../../domain/pulls/review-comment.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { foldId } from '../../../lib/ids.ts';
import { html } from '../html.ts';
import type { MarkdownBase } from '../markdown/links.ts';
import { markdownBase } from '../paths.ts';
import type { ContentRenderer } from '../render/content-renderer.ts';
import { reviewCommentBox } from '../views/pull.ts';
import type { ThreadParts } from '../views/review-thread.ts';

/** How a pull's description and comments are rendered: in the tree of its base branch. */
export function pullMarkdownBase(found: PullInContext): MarkdownBase {
  return markdownBase(found.base.repo, found.pull.baseBranch);
}

/**
 * Builds review comment boxes for a page: loads the authors (and who resolved threads) and renders every body as markdown
 * through the render pool (in batches, see `ContentRenderer.markdownList`) before the page is
 * drawn, since views are synchronous.
 */
export async function reviewCommentBoxes(
  deps: { readonly services: Pick<DomainServices, 'users'> },
  renderer: ContentRenderer,
  found: PullInContext,
  comments: readonly ReviewComment[],
): Promise<ThreadParts> {
  const people = comments.flatMap((c) =>
    c.resolvedById ? [c.authorId, c.resolvedById] : [c.authorId],
  );
  const [authors, bodies] = await Promise.all([
    deps.services.users.findManyByIds(people),
    renderer.markdownList(
      comments.map((c) => c.body),
      pullMarkdownBase(found),
    ),
  ]);
  const rendered = new Map(comments.map((c, i) => [c.id, bodies[i] ?? html``]));
  return {
    box: (comment, options = {}) =>
      reviewCommentBox(comment, authors.get(comment.authorId), {
        ...options,
        id: foldId(comment.id),
        body: rendered.get(comment.id) ?? html``,
      }),
    handleOf: (userId) => authors.get(userId)?.handle,
  };
}
