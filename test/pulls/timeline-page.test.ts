/**
 * The conversation tab's part of a pull's timeline, read page by page: for generated pulls
 * (reviews submitted out of the order they were started, pending ones, events at the same
 * millisecond as reviews, line comments of reviews and on their own, threads mixing them, seen
 * by the reviewer, someone else or nobody), the first and latest items and the threads they
 * show are those of the whole timeline cut as the page cuts it, read in a fixed number of
 * queries whatever the pull's size.
 */
import fc from 'fast-check';
import type { CompiledQuery, KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { PullInContext } from '../../src/domain/pulls/pull.service.ts';
import { PullReviewStore } from '../../src/domain/pulls/pull-review.store.ts';
import {
  PullTimelineService,
  TIMELINE_HEAD,
  TIMELINE_TAIL,
  type TimelinePage,
} from '../../src/domain/pulls/pull-timeline.service.ts';
import { PullTimelineStore } from '../../src/domain/pulls/pull-timeline.store.ts';
import { ReviewCommentStore } from '../../src/domain/pulls/review-comment.store.ts';
import { reviewThreads } from '../../src/domain/pulls/review-threads.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { newId } from '../../src/lib/ids.ts';
import { branchesFromRoot } from '../support/branches.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';

let kiln: TestServer;
let owner: User;
let reviewer: User;
let found: PullInContext;

useWorld(
  { people: ['owner', 'reviewer'], repos: [{ owner: 'owner', name: 'paged' }] },
  async (world) => {
    kiln = world.kiln;
    owner = world.people.owner.user;
    reviewer = world.people.reviewer.user;
    await branchesFromRoot(
      kiln,
      world.repos.paged,
      { files: { 'a.txt': 'one\n' } },
      { feature: { files: { 'a.txt': 'ONE\n' }, message: 'Shout' } },
    );
    await kiln.app.services.pulls.create(owner, owner.handle, 'paged', {
      title: 'Shout',
      head: 'feature',
      base: 'main',
    });
    found = await kiln.app.services.pulls.get(owner, owner.handle, 'paged', 1);
  },
);

/** The timeline's stores over a handle that counts the statements run through it. */
function countingTimeline() {
  let statements = 0;
  const counter: KyselyPlugin = {
    transformQuery: (args) => args.node,
    // Called once per statement run; a subquery is transformed, but not run, on its own.
    transformResult: async (args) => {
      statements += 1;
      return args.result;
    },
  };
  const db = kiln.app.database.db.withPlugin(counter);
  const service = new PullTimelineService(
    new PullTimelineStore(db),
    kiln.app.services.repos,
    kiln.app.git.catFiles,
    { reviews: new PullReviewStore(db), comments: new ReviewCommentStore(db) },
  );
  return { service, count: () => statements };
}

const review = fc.record({
  by: fc.constantFrom('owner', 'reviewer'),
  state: fc.constantFrom('APPROVED', 'REQUEST_CHANGES', 'COMMENT', 'PENDING'),
  startedAt: fc.integer({ min: 0, max: 8 }),
  submittedAfter: fc.integer({ min: 0, max: 4 }),
});
const comment = fc.record({
  review: fc.option(fc.nat(), { nil: null }),
  path: fc.constantFrom('a.txt', 'b.txt'),
  side: fc.constantFrom('LEFT', 'RIGHT'),
  line: fc.integer({ min: 1, max: 3 }),
  at: fc.integer({ min: 0, max: 12 }),
});
const pullHistory = fc.record({
  reviews: fc.array(review, { minLength: 10, maxLength: 30 }),
  events: fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 12 }),
  comments: fc.array(comment, { maxLength: 40 }),
  viewer: fc.constantFrom('owner', 'reviewer', 'nobody'),
});
type PullHistory = typeof pullHistory extends fc.Arbitrary<infer T> ? T : never;

/** Writes a generated history as the pull's only reviews, comments and events. */
async function seed(history: PullHistory): Promise<void> {
  const db = kiln.app.database.db;
  const pullId = found.pull.id;
  await db.deleteFrom('review_comments').where('pull_id', '=', pullId).execute();
  await db.deleteFrom('pull_reviews').where('pull_id', '=', pullId).execute();
  await db.deleteFrom('pull_timeline').where('pull_id', '=', pullId).execute();
  const person = (who: string) => (who === 'owner' ? owner : reviewer);
  const ids = history.reviews.map(() => newId());
  for (const [i, r] of history.reviews.entries()) {
    const submitted = r.state === 'PENDING' ? null : r.startedAt + r.submittedAfter;
    await db
      .insertInto('pull_reviews')
      .values({
        id: ids[i] ?? '',
        pull_id: pullId,
        repo_id: found.base.repo.id,
        reviewer_id: person(r.by).id,
        state: r.state,
        body: `review ${i}`,
        commit_id: found.pull.headSha,
        created_at: r.startedAt,
        updated_at: r.startedAt,
        submitted_at: submitted,
      })
      .execute();
  }
  for (const at of history.events) {
    await db
      .insertInto('pull_timeline')
      .values({ id: newId(), pull_id: pullId, kind: 'push', actor_id: owner.id, created_at: at })
      .execute();
  }
  for (const [i, c] of history.comments.entries()) {
    const reviewId = c.review === null || ids.length === 0 ? null : ids[c.review % ids.length];
    await db
      .insertInto('review_comments')
      .values({
        id: newId(),
        pull_id: pullId,
        repo_id: found.base.repo.id,
        author_id: owner.id,
        body: `comment ${i}`,
        path: c.path,
        line: c.side === 'RIGHT' ? c.line : null,
        old_line: c.side === 'LEFT' ? c.line : null,
        side: c.side,
        commit_id: found.pull.headSha,
        original_commit_id: found.pull.headSha,
        diff_hunk: '@@ -1 +1 @@',
        in_reply_to_id: null,
        created_at: c.at,
        updated_at: c.at,
        review_id: reviewId ?? null,
      })
      .execute();
  }
}

/** The page as the whole timeline cut on the page's rule: what the tab showed before paging. */
function cutOf(whole: TimelinePage) {
  const items = [
    ...whole.reviews.map((r) => ({ id: r.id, at: (r.submittedAt ?? r.createdAt).getTime() })),
    ...whole.entries.map((e) => ({ id: e.id, at: e.createdAt.getTime() })),
  ].sort((a, b) => a.at - b.at);
  const cut = items.length > TIMELINE_HEAD + TIMELINE_TAIL;
  const kept = cut ? [...items.slice(0, TIMELINE_HEAD), ...items.slice(-TIMELINE_TAIL)] : items;
  return { ids: new Set(kept.map((item) => item.id)), hidden: items.length - kept.length };
}

/** The threads a page draws: those its shown reviews started, and those no review started. */
function drawnThreads(comments: TimelinePage['comments'], shown: ReadonlySet<string>) {
  return reviewThreads(comments)
    .filter(({ first }) => first.reviewId === null || shown.has(first.reviewId))
    .map((thread) => thread.comments.map((c) => c.body));
}

describe('a page of the pull timeline', () => {
  it('shows what the whole timeline cut to its ends shows, in at most four queries', async () => {
    await fc.assert(
      fc.asyncProperty(pullHistory, async (history) => {
        await seed(history);
        const viewer =
          history.viewer === 'nobody' ? undefined : history.viewer === 'owner' ? owner : reviewer;
        const { service, count } = countingTimeline();
        const whole = await service.pageOf(found, viewer, { all: true });
        const before = count();
        const page = await service.pageOf(found, viewer);
        expect(count() - before).toBeLessThanOrEqual(4);

        const expected = cutOf(whole);
        expect(page.hidden).toBe(expected.hidden);
        const shownIds = [...page.reviews, ...page.entries].map((item) => item.id);
        expect(new Set(shownIds)).toEqual(expected.ids);
        expect(page.reviews.every((r) => r.state !== 'PENDING')).toBe(true);
        const shownReviews = new Set(page.reviews.map((r) => r.id));
        expect(drawnThreads(page.comments, shownReviews)).toEqual(
          drawnThreads(whole.comments, shownReviews),
        );
      }),
      { numRuns: 40 },
    );
  });

  it("reads the threads it shows by index, not by a pass over the pull's comments", async (context) => {
    // The plan is SQLite's to choose with no statistics; PostgreSQL chooses by its own.
    if (kiln.app.database.dialect !== 'sqlite') context.skip();
    const reviewIds = [newId(), newId()];
    const steps = await planOf((db) =>
      new ReviewCommentStore(db).listOnThreadsOf(found.pull.id, reviewIds, undefined),
    );
    const onComments = steps.filter((step) =>
      /^(SEARCH|SCAN) (review_comments|shown)\b/.test(step),
    );
    expect(onComments.length).toBeGreaterThan(0);
    for (const step of onComments) {
      expect(step).toMatch(/^SEARCH .*USING INDEX review_comments_(pull_review|thread) /);
    }
  });

  it('reads the ends of the timeline in index order, without sorting its every item', async (context) => {
    if (kiln.app.database.dialect !== 'sqlite') context.skip();
    const steps = await planOf((db) => new PullTimelineStore(db).endsOf(found.pull.id, 5, 15));
    expect(steps).toContain('SEARCH pull_reviews USING INDEX pull_reviews_timeline (pull_id=?)');
    expect(steps).toContain(
      'SEARCH pull_timeline USING COVERING INDEX pull_timeline_order (pull_id=?)',
    );
    expect(steps.filter((step) => /^SCAN (pull_reviews|pull_timeline)\b/.test(step))).toEqual([]);
  });
});

/** SQLite's plan of the last statement `run` makes, one step's detail a line. */
async function planOf(run: (db: typeof kiln.app.database.db) => Promise<unknown>) {
  const db = kiln.app.database.db;
  const compiled: CompiledQuery[] = [];
  const spy: KyselyPlugin = {
    transformQuery: (args) => {
      compiled.push(db.getExecutor().compileQuery(args.node, args.queryId));
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  await run(db.withPlugin(spy));
  const query = compiled.at(-1);
  if (!query) throw new Error('no query was made');
  const plan = await db.executeQuery<{ detail: string }>({
    ...query,
    sql: `explain query plan ${query.sql}`,
  });
  return plan.rows.map((row) => row.detail);
}
