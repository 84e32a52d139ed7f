import type { PullInContext } from '../../../domain/pulls/pull.service.ts';
import { type ReviewThread, reviewThreads } from '../../../domain/pulls/review-threads.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { html } from '../html.ts';
import type { ContentRenderer } from '../render/content-renderer.ts';
import { type TimelineItem, type TimelineReview, timelineItems } from '../views/pull-timeline.ts';
import type { ThreadParts } from '../views/review-thread.ts';
import { commentBoxesFrom, commentPeople, pullMarkdownBase } from './review-comment-boxes.ts';

/** What the conversation tab's timeline is drawn from. */
export type TimelineParts = {
  readonly items: readonly TimelineItem[];
  /** Items left out between the first and the latest (0 when all are shown). */
  readonly hidden: number;
  /** Threads started by no submitted review: line comments made on their own. */
  readonly loose: readonly ReviewThread[];
  /** The boxes of the comments on the shown threads (the loose ones and the shown reviews'). */
  readonly boxes: ThreadParts;
  /** A person's handle by account id ("someone" once the account is gone). */
  readonly who: (userId: string | null) => string;
};

/**
 * Loads the part of the timeline the page shows (`PullTimelineService.pageOf`) and the people
 * it names, and renders review and comment bodies through the render pool in one batch, so the
 * timeline view stays synchronous.
 */
export async function loadTimeline(
  deps: { readonly services: Pick<DomainServices, 'users' | 'pullTimeline'> },
  renderer: ContentRenderer,
  found: PullInContext,
  viewer: User | undefined,
  options: { readonly extraPeople?: readonly string[]; readonly all?: boolean } = {},
): Promise<TimelineParts> {
  const { pullTimeline, users } = deps.services;
  const page = await pullTimeline.pageOf(found, viewer, { all: options.all ?? false });
  const { reviews, entries } = page;
  const shownReviews = new Set(reviews.map((review) => review.id));
  const byReview = new Map<string, ReviewThread[]>();
  const loose: ReviewThread[] = [];
  for (const thread of reviewThreads(page.comments)) {
    const reviewId = thread.first.reviewId;
    if (reviewId !== null && shownReviews.has(reviewId)) {
      byReview.set(reviewId, [...(byReview.get(reviewId) ?? []), thread]);
    } else if (reviewId === null) loose.push(thread);
  }
  const shownComments = [...loose, ...[...byReview.values()].flat()].flatMap(
    (thread) => thread.comments,
  );
  const withBody = reviews.filter((review) => review.body.trim() !== '');
  // One lookup of everyone the page names and one render batch of every text it shows.
  const [people, bodies] = await Promise.all([
    users.findManyByIds([
      ...reviews.flatMap((r) =>
        r.dismissedById ? [r.reviewerId, r.dismissedById] : [r.reviewerId],
      ),
      ...entries.flatMap((entry) => (entry.actorId ? [entry.actorId] : [])),
      ...commentPeople(shownComments),
      ...(options.extraPeople ?? []),
    ]),
    renderer.markdownList(
      [...withBody.map((review) => review.body), ...shownComments.map((c) => c.body)],
      pullMarkdownBase(found),
    ),
  ]);
  const rendered = new Map(withBody.map((review, i) => [review.id, bodies[i] ?? html``]));
  const timelineReviews: TimelineReview[] = reviews.map((review) => ({
    review,
    body: rendered.get(review.id) ?? null,
    threads: byReview.get(review.id) ?? [],
  }));
  return {
    items: timelineItems(timelineReviews, entries),
    hidden: page.hidden,
    loose,
    boxes: commentBoxesFrom(shownComments, people, bodies.slice(withBody.length)),
    who: (userId) => (userId && people.get(userId)?.handle) || 'someone',
  };
}
