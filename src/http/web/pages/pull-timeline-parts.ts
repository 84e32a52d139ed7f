import type { PullInContext } from '../../../domain/pulls/pull.service.ts';
import type { PullReview } from '../../../domain/pulls/pull-review.types.ts';
import type { ReviewThread } from '../../../domain/pulls/review-threads.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { html } from '../html.ts';
import type { ContentRenderer } from '../render/content-renderer.ts';
import { type TimelineItem, type TimelineReview, timelineItems } from '../views/pull-timeline.ts';
import { pullMarkdownBase } from './review-comment-boxes.ts';

/** Timeline items a page shows unless asked for all: the first few and the latest. */
export const TIMELINE_HEAD = 5;
export const TIMELINE_TAIL = 15;

/** What the conversation tab's timeline is drawn from. */
export type TimelineParts = {
  readonly items: readonly TimelineItem[];
  /** Items left out between the first and the latest (0 when all are shown). */
  readonly hidden: number;
  /** Every thread the shown items and the loose threads hold, for their comment boxes. */
  readonly shownThreads: readonly ReviewThread[];
  /** Threads started by no submitted review: line comments made on their own. */
  readonly loose: readonly ReviewThread[];
  /** A person's handle by account id ("someone" once the account is gone). */
  readonly who: (userId: string | null) => string;
  /** The viewer's own pending review, if any. */
  readonly pending: PullReview | undefined;
};

/**
 * Loads the reviews, the recorded events and the people they name, and renders review bodies
 * through the render pool in one batch, so the timeline view stays synchronous.
 */
export async function loadTimeline(
  deps: { readonly services: Pick<DomainServices, 'users' | 'pullReviews' | 'pullTimeline'> },
  renderer: ContentRenderer,
  found: PullInContext,
  viewer: User | undefined,
  threads: readonly ReviewThread[],
  options: { readonly extraPeople?: readonly string[]; readonly all?: boolean } = {},
): Promise<TimelineParts> {
  const { pullReviews, pullTimeline, users } = deps.services;
  const [reviews, entries] = await Promise.all([
    pullReviews.listOf(found, viewer),
    pullTimeline.listOf(found),
  ]);
  const allSubmitted = reviews.filter((review) => review.state !== 'PENDING');
  // A long timeline shows its first and latest items; bodies and threads are drawn for those
  // only, so a page's cost does not grow with a pull's whole history.
  const order = timelineItems(
    allSubmitted.map((review) => ({ review, body: null, threads: [] })),
    entries,
  );
  const cut = !options.all && order.length > TIMELINE_HEAD + TIMELINE_TAIL;
  const kept = cut ? [...order.slice(0, TIMELINE_HEAD), ...order.slice(-TIMELINE_TAIL)] : order;
  const keptReviews = new Set(
    kept.flatMap((item) => (item.kind === 'review' ? [item.review.review.id] : [])),
  );
  const submitted = allSubmitted.filter((review) => keptReviews.has(review.id));
  const keptEntries = entries.filter((entry) =>
    kept.some((item) => item.kind === 'event' && item.entry.id === entry.id),
  );
  const withBody = submitted.filter((review) => review.body.trim() !== '');
  const [people, bodies] = await Promise.all([
    users.findManyByIds([
      ...submitted.flatMap((r) =>
        r.dismissedById ? [r.reviewerId, r.dismissedById] : [r.reviewerId],
      ),
      ...keptEntries.flatMap((entry) => (entry.actorId ? [entry.actorId] : [])),
      ...(options.extraPeople ?? []),
    ]),
    renderer.markdownList(
      withBody.map((review) => review.body),
      pullMarkdownBase(found),
    ),
  ]);
  const rendered = new Map(withBody.map((review, i) => [review.id, bodies[i] ?? html``]));
  const byReview = new Map<string, ReviewThread[]>();
  const loose: ReviewThread[] = [];
  for (const thread of threads) {
    const reviewId = thread.first.reviewId;
    if (reviewId !== null && keptReviews.has(reviewId)) {
      byReview.set(reviewId, [...(byReview.get(reviewId) ?? []), thread]);
    } else if (reviewId === null) loose.push(thread);
  }
  const timelineReviews: TimelineReview[] = submitted.map((review) => ({
    review,
    body: rendered.get(review.id) ?? null,
    threads: byReview.get(review.id) ?? [],
  }));
  return {
    items: timelineItems(timelineReviews, keptEntries),
    hidden: order.length - kept.length,
    shownThreads: [...loose, ...[...byReview.values()].flat()],
    loose,
    who: (userId) => (userId && people.get(userId)?.handle) || 'someone',
    pending: reviews.find((review) => review.state === 'PENDING'),
  };
}
