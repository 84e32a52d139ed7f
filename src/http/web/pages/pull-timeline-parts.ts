import type { PullInContext } from '../../../domain/pulls/pull.service.ts';
import type { PullReview } from '../../../domain/pulls/pull-review.types.ts';
import type { ReviewThread } from '../../../domain/pulls/review-threads.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { html } from '../html.ts';
import type { ContentRenderer } from '../render/content-renderer.ts';
import { type TimelineItem, type TimelineReview, timelineItems } from '../views/pull-timeline.ts';
import { pullMarkdownBase } from './review-comment-boxes.ts';

/** What the conversation tab's timeline is drawn from. */
export type TimelineParts = {
  readonly items: readonly TimelineItem[];
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
  extraPeople: readonly string[] = [],
): Promise<TimelineParts> {
  const { pullReviews, pullTimeline, users } = deps.services;
  const [reviews, entries] = await Promise.all([
    pullReviews.listOf(found, viewer),
    pullTimeline.listOf(found),
  ]);
  const submitted = reviews.filter((review) => review.state !== 'PENDING');
  const withBody = submitted.filter((review) => review.body.trim() !== '');
  const [people, bodies] = await Promise.all([
    users.findManyByIds([
      ...submitted.flatMap((r) =>
        r.dismissedById ? [r.reviewerId, r.dismissedById] : [r.reviewerId],
      ),
      ...entries.flatMap((entry) => (entry.actorId ? [entry.actorId] : [])),
      ...extraPeople,
    ]),
    renderer.markdownList(
      withBody.map((review) => review.body),
      pullMarkdownBase(found),
    ),
  ]);
  const rendered = new Map(withBody.map((review, i) => [review.id, bodies[i] ?? html``]));
  const byReview = new Map<string, ReviewThread[]>();
  const loose: ReviewThread[] = [];
  const submittedIds = new Set(submitted.map((review) => review.id));
  for (const thread of threads) {
    const reviewId = thread.first.reviewId;
    if (reviewId !== null && submittedIds.has(reviewId)) {
      byReview.set(reviewId, [...(byReview.get(reviewId) ?? []), thread]);
    } else if (reviewId === null) loose.push(thread);
  }
  const timelineReviews: TimelineReview[] = submitted.map((review) => ({
    review,
    body: rendered.get(review.id) ?? null,
    threads: byReview.get(review.id) ?? [],
  }));
  return {
    items: timelineItems(timelineReviews, entries),
    loose,
    who: (userId) => (userId && people.get(userId)?.handle) || 'someone',
    pending: reviews.find((review) => review.state === 'PENDING'),
  };
}
