import type { PullInContext } from '../../../domain/pulls/pull.service.ts';
import type { ReviewComment } from '../../../domain/pulls/review-comment.service.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { Account } from '../../../domain/users/user.types.ts';
import { foldId } from '../../../lib/ids.ts';
import { type Html, html } from '../html.ts';
import type { MarkdownBase } from '../markdown/links.ts';
import { markdownBase } from '../paths.ts';
import type { ContentRenderer } from '../render/content-renderer.ts';
import { reviewCommentBox } from '../views/pull.ts';
import type { ThreadParts } from '../views/review-thread.ts';

/** How a pull's description and comments are rendered: in the tree of its base branch. */
export function pullMarkdownBase(found: PullInContext): MarkdownBase {
  return markdownBase(found.base.repo, found.pull.baseBranch);
}

/** The people a page's comment boxes name: their authors and who resolved their threads. */
export function commentPeople(comments: readonly ReviewComment[]): string[] {
  return comments.flatMap((c) => (c.resolvedById ? [c.authorId, c.resolvedById] : [c.authorId]));
}

/**
 * Review comment boxes from what a page has loaded: `people` by id (`commentPeople`), and
 * each comment's body rendered, in the order of `comments`.
 */
export function commentBoxesFrom(
  comments: readonly ReviewComment[],
  people: ReadonlyMap<string, Account>,
  bodies: readonly Html[],
): ThreadParts {
  const rendered = new Map(comments.map((c, i) => [c.id, bodies[i] ?? html``]));
  return {
    box: (comment, options = {}) =>
      reviewCommentBox(comment, people.get(comment.authorId), {
        ...options,
        id: foldId(comment.id),
        body: rendered.get(comment.id) ?? html``,
      }),
    handleOf: (userId) => people.get(userId)?.handle,
  };
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
  const [people, bodies] = await Promise.all([
    deps.services.users.findManyByIds(commentPeople(comments)),
    renderer.markdownList(
      comments.map((c) => c.body),
      pullMarkdownBase(found),
    ),
  ]);
  return commentBoxesFrom(comments, people, bodies);
}
