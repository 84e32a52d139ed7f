import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { commitsBetween } from '../../git/pull-refs.ts';
import { isAncestor } from '../../git/refs.ts';
import { newId } from '../../lib/ids.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { User } from '../users/user.types.ts';
import type { PullInContext } from './pull.service.ts';
import type { PullEvent } from './pull-events.ts';
import type { PullReviewStore } from './pull-review.store.ts';
import type { PullReview } from './pull-review.types.ts';
import type { PullTimelineStore } from './pull-timeline.store.ts';
import type { PullTimelineEntry, PullTimelineKind } from './pull-timeline.types.ts';
import type { ReviewCommentStore } from './review-comment.store.ts';
import type { ReviewComment } from './review-comment.types.ts';

/** Most commits a push is counted up to; a larger push shows as this many. */
const MAX_COUNTED = 10_000;

/** Timeline items a page shows unless asked for all: the first few and the latest. */
export const TIMELINE_HEAD = 5;
export const TIMELINE_TAIL = 15;

/** What the conversation tab shows of a pull's timeline. */
export type TimelinePage = {
  /** The submitted reviews shown, oldest first. */
  readonly reviews: readonly PullReview[];
  /** The entries shown, oldest first. */
  readonly entries: readonly PullTimelineEntry[];
  /** Items left out between the first and the latest (0 when all are shown). */
  readonly hidden: number;
  /**
   * The comments the viewer may see on every thread a shown review's comments, or a line
   * comment made on its own, are on, oldest first: enough to draw those threads whole.
   */
  readonly comments: readonly ReviewComment[];
};

/** The reads a timeline page makes besides the entries. */
export type TimelineReads = {
  readonly reviews: Pick<PullReviewStore, 'listByPull' | 'listSubmittedByIds'>;
  readonly comments: Pick<ReviewCommentStore, 'listByPull' | 'listOnThreadsOf'>;
};

/**
 * What happened to each pull request besides its reviews, kept for its timeline: every push to
 * its head (the commits it added, or a force push that rewrote it), closes, reopens and the
 * merge, each with who did it. Recorded from the pull's own announcements, so nothing that
 * changes a pull has to remember to write it.
 */
export class PullTimelineService {
  readonly #store: PullTimelineStore;
  readonly #repos: Pick<RepoService, 'handle'>;
  readonly #catFiles: CatFilePool;
  readonly #reads: TimelineReads;

  constructor(
    store: PullTimelineStore,
    repos: Pick<RepoService, 'handle'>,
    catFiles: CatFilePool,
    reads: TimelineReads,
  ) {
    this.#store = store;
    this.#repos = repos;
    this.#catFiles = catFiles;
    this.#reads = reads;
  }

  /** The timeline entries of a pull already looked up for the viewer, oldest first. */
  listOf(context: PullInContext): Promise<PullTimelineEntry[]> {
    return this.#store.listByPull(context.pull.id);
  }

  /**
   * What the conversation tab shows of a pull already looked up for the viewer: all of its
   * timeline when `all` is set, else its first `TIMELINE_HEAD` and latest `TIMELINE_TAIL`
   * items. A fixed number of queries whatever the pull's length (the order, the reviews, the
   * entries, the comments), and only the rows shown are read, so a page of a long-reviewed
   * pull costs about what a short one does.
   */
  async pageOf(
    context: PullInContext,
    viewer: User | undefined,
    options: { readonly all?: boolean } = {},
  ): Promise<TimelinePage> {
    const pullId = context.pull.id;
    if (options.all) {
      const [reviews, entries, comments] = await Promise.all([
        this.#reads.reviews.listByPull(pullId, viewer?.id),
        this.#store.listByPull(pullId),
        this.#reads.comments.listByPull(pullId, viewer?.id),
      ]);
      const submitted = reviews.filter((review) => review.state !== 'PENDING');
      return { reviews: submitted, entries, hidden: 0, comments };
    }
    const { keys, total } = await this.#store.endsOf(pullId, TIMELINE_HEAD, TIMELINE_TAIL);
    const idsOf = (kind: 'review' | 'event') =>
      keys.flatMap((key) => (key.kind === kind ? [key.id] : []));
    const reviewIds = idsOf('review');
    const [reviews, entries, comments] = await Promise.all([
      this.#reads.reviews.listSubmittedByIds(pullId, reviewIds),
      this.#store.listByIds(pullId, idsOf('event')),
      this.#reads.comments.listOnThreadsOf(pullId, reviewIds, viewer?.id),
    ]);
    return { reviews, entries, hidden: total - keys.length, comments };
  }

  /** Records that an administrator merged past what still blocked the merge. */
  async recordOverride(pullId: string, actorId: string, blockers: readonly string[]) {
    await this.#store.insert({
      id: newId(),
      pullId,
      kind: 'merge_override',
      actorId,
      oldSha: null,
      newSha: null,
      commits: 0,
      note: blockers.join('\n'),
      createdAt: new Date(),
    });
  }

  async record(event: PullEvent): Promise<void> {
    const { pull, base } = event.context;
    const entry = (kind: PullTimelineKind, extra: Partial<PullTimelineEntry> = {}) =>
      this.#store.insert({
        id: newId(),
        pullId: pull.id,
        kind,
        actorId: event.actor.id,
        oldSha: null,
        newSha: null,
        commits: 0,
        note: null,
        createdAt: new Date(),
        ...extra,
      });
    if (event.action === 'closed') return entry(event.merged ? 'merged' : 'closed');
    if (event.action === 'reopened') return entry('reopened');
    if (event.action !== 'synchronized' || !event.previousHeadSha) return;
    const handle = this.#repos.handle(base);
    const from = event.previousHeadSha;
    const to = pull.headSha;
    // An old head git no longer has was rewritten away: that is a force push too.
    const fastForward = await isAncestor(handle, from, to).catch(() => false);
    const commits = fastForward
      ? (await commitsBetween(this.#catFiles, handle, from, to, MAX_COUNTED)).length
      : 0;
    await entry(fastForward ? 'push' : 'force_push', { oldSha: from, newSha: to, commits });
  }
}
