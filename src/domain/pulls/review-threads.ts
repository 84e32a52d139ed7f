import type { ReviewComment } from './review-comment.types.ts';

/**
 * The comments on one line of one side of one file of a pull, oldest first. The first comment
 * starts the thread and carries whether it is resolved.
 */
export type ReviewThread = {
  readonly first: ReviewComment;
  readonly comments: readonly ReviewComment[];
  /** Who resolved the thread and when; undefined while it is open. */
  readonly resolved: { readonly byId: string; readonly at: Date } | undefined;
};

/** The line a comment is on, on its own side of the diff. */
export function lineOf(comment: Pick<ReviewComment, 'side' | 'line' | 'oldLine'>): number {
  return (comment.side === 'RIGHT' ? comment.line : comment.oldLine) ?? 0;
}

/**
 * What puts comments in one thread: the same file, side and line, as in Gitea and GitHub. The
 * side and the line never hold a space, so the path after them is told apart whatever it holds
 * (a pull page groups every comment it shows through this, so no JSON per comment).
 */
function keyOf(comment: ReviewComment): string {
  return `${comment.side} ${lineOf(comment)} ${comment.path}`;
}

/**
 * Groups a pull's comments (oldest first, as the store lists them) into threads, ordered by
 * their first comment. Replies inherit their parent's anchor, so a reply always lands in its
 * parent's thread.
 */
export function reviewThreads(comments: readonly ReviewComment[]): ReviewThread[] {
  const groups = new Map<string, ReviewComment[]>();
  for (const comment of comments) {
    const key = keyOf(comment);
    const group = groups.get(key);
    if (group) group.push(comment);
    else groups.set(key, [comment]);
  }
  return [...groups.values()].flatMap((group) => {
    const [first] = group;
    if (!first) return [];
    const { resolvedById, resolvedAt } = first;
    return [
      {
        first,
        comments: group,
        resolved: resolvedById && resolvedAt ? { byId: resolvedById, at: resolvedAt } : undefined,
      },
    ];
  });
}

/** The thread a comment belongs to, among the pull's comments. */
export function threadOf(
  comments: readonly ReviewComment[],
  comment: ReviewComment,
): ReviewThread | undefined {
  const key = keyOf(comment);
  return reviewThreads(comments.filter((c) => keyOf(c) === key))[0];
}
