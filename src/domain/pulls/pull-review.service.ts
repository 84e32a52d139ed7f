import { newId } from '../../lib/ids.ts';
import { monotonicNow } from '../../lib/time.ts';
import { Forbidden, Invalid, NotFound } from '../errors.ts';
import type { EventPublisher } from '../events.ts';
import { mayAdministerRepo } from '../repos/repo.policy.ts';
import type { User } from '../users/user.types.ts';
import { mayCommentOnPull } from './pull.policy.ts';
import type { PullInContext, PullService } from './pull.service.ts';
import type { PullReviewStore } from './pull-review.store.ts';
import type {
  NewPullReview,
  NewReviewLineComment,
  PullReview,
  ReviewState,
  ReviewVerdict,
} from './pull-review.types.ts';
import type { ReviewCommentService } from './review-comment.service.ts';
import { checkBody, checkVerdict } from './review-rules.ts';

/** Whether a reviewer's approval counts toward the base branch's required approvals. */
export type OfficialReviewer = (context: PullInContext, reviewer: User) => Promise<boolean>;

/** What reviews read and write, and the services they build on. */
export type PullReviewDeps = {
  readonly store: PullReviewStore;
  readonly pulls: Pick<PullService, 'get' | 'currentHead'>;
  readonly comments: Pick<ReviewCommentService, 'addToReview' | 'listOfReview'>;
  readonly official: OfficialReviewer;
  /** Where a submitted review is announced (`review.submitted`). */
  readonly events?: EventPublisher;
};

/** Most line comments one review may carry at once. */
export const MAX_REVIEW_COMMENTS = 100;

/**
 * Reviews of pull requests, as Gitea has them: a review is pending (seen by its reviewer alone)
 * until submitted with a verdict; an approval or a request for changes comes from someone other
 * than the pull's author; a repository admin may dismiss either, which takes it out of the
 * merge's reckoning without deleting it.
 */
export class PullReviewService {
  readonly #deps: PullReviewDeps;

  constructor(deps: PullReviewDeps) {
    this.#deps = deps;
  }

  /** The reviews of a pull the viewer may see, oldest first (their own pending one included). */
  async list(viewer: User | undefined, owner: string, name: string, number: number) {
    const context = await this.#deps.pulls.get(viewer, owner, name, number);
    return { context, reviews: await this.listOf(context, viewer) };
  }

  /** The reviews of a pull already looked up for the viewer. */
  listOf(context: PullInContext, viewer: User | undefined): Promise<PullReview[]> {
    return this.#deps.store.listByPull(context.pull.id, viewer?.id);
  }

  /** How many line comments each review carries. */
  commentCounts(reviews: readonly PullReview[]): Promise<Map<string, number>> {
    return this.#deps.store.commentCounts(reviews.map((review) => review.id));
  }

  /** One review; another's pending review is not found. */
  async get(viewer: User | undefined, owner: string, name: string, number: number, id: number) {
    const context = await this.#deps.pulls.get(viewer, owner, name, number);
    return { context, review: await this.#find(context, viewer, id) };
  }

  /** The line comments of one review. */
  async comments(
    viewer: User | undefined,
    owner: string,
    name: string,
    number: number,
    id: number,
  ) {
    const { context, review } = await this.get(viewer, owner, name, number, id);
    return { context, review, comments: await this.#deps.comments.listOfReview(review.id) };
  }

  /**
   * Starts or adds to the actor's pending review, with its line comments; with a verdict the
   * review is submitted at once. As in Gitea, a pending review the actor already has is the one
   * the comments join, so a client that comments first and submits later loses nothing.
   */
  async create(actor: User, owner: string, name: string, number: number, input: NewPullReview) {
    const context = await this.#deps.pulls.get(actor, owner, name, number);
    if (!mayCommentOnPull(actor, context.base.access)) {
      throw new Forbidden('you may not review this pull request');
    }
    const lines = input.comments ?? [];
    if (lines.length > MAX_REVIEW_COMMENTS) {
      throw new Invalid(`a review carries at most ${MAX_REVIEW_COMMENTS} comments`);
    }
    const event = input.event ?? 'PENDING';
    const body = checkBody(input.body ?? '');
    const now = monotonicNow();
    let review = await this.#deps.store.findPending(context.pull.id, actor.id);
    if (event !== 'PENDING') {
      // A pending review being submitted brings its own summary and comments to the check.
      const carried = review ? (await this.#deps.comments.listOfReview(review.id)).length : 0;
      const summary = body === '' ? (review?.body ?? '') : body;
      checkVerdict(context, actor, event, summary, lines.length + carried > 0);
    }
    if (!review) {
      review = {
        id: newId(),
        pullId: context.pull.id,
        reviewerId: actor.id,
        state: 'PENDING',
        body,
        commitId: await this.#deps.pulls.currentHead(context),
        official: false,
        dismissed: false,
        dismissedById: null,
        dismissMessage: null,
        createdAt: now,
        updatedAt: now,
        submittedAt: null,
      };
      await this.#deps.store.insert({ ...review, repoId: context.base.repo.id });
    } else if (body !== '') {
      await this.#deps.store.updateBody(review.id, body, now.getTime());
      review = { ...review, body };
    }
    for (const line of lines) await this.#addLine(actor, context, review.id, line);
    if (event === 'PENDING') return { context, review };
    return { context, review: await this.#submit(actor, context, review, event, review.body) };
  }

  /** Submits the actor's pending review with a verdict (Gitea's `POST …/reviews/{id}`). */
  async submit(
    actor: User,
    owner: string,
    name: string,
    number: number,
    id: number,
    input: { event?: ReviewState | undefined; body?: string | undefined },
  ) {
    const context = await this.#deps.pulls.get(actor, owner, name, number);
    const review = await this.#find(context, actor, id);
    if (review.state !== 'PENDING') throw new Invalid('only a pending review can be submitted');
    const event = input.event;
    if (event === undefined || event === 'PENDING') {
      throw new Invalid('event must be APPROVED, REQUEST_CHANGES or COMMENT to submit a review');
    }
    const body = input.body === undefined ? review.body : checkBody(input.body);
    const lines = (await this.#deps.comments.listOfReview(review.id)).length;
    checkVerdict(context, actor, event, body, lines > 0);
    return { context, review: await this.#submit(actor, context, review, event, body) };
  }

  /** Deletes a review with its comments: its reviewer or a repository admin may. */
  async delete(actor: User, owner: string, name: string, number: number, id: number) {
    const context = await this.#deps.pulls.get(actor, owner, name, number);
    const review = await this.#find(context, actor, id);
    if (review.reviewerId !== actor.id && !mayAdministerRepo(context.base.access)) {
      throw new Forbidden('only the reviewer or a repository admin may delete a review');
    }
    await this.#deps.store.delete(review.id);
  }

  /**
   * Dismisses an approval or a request for changes (a repository admin's call), with a message;
   * `priors` dismisses the reviewer's earlier verdicts on the pull as well.
   */
  async dismiss(
    actor: User,
    owner: string,
    name: string,
    number: number,
    id: number,
    input: { message: string; priors: boolean },
  ) {
    const context = await this.#deps.pulls.get(actor, owner, name, number);
    if (!mayAdministerRepo(context.base.access)) throw new Forbidden('Must be repo admin');
    const review = await this.#find(context, actor, id);
    if (review.state !== 'APPROVED' && review.state !== 'REQUEST_CHANGES') {
      throw new Invalid('only an approval or a request for changes can be dismissed');
    }
    if (context.pull.state !== 'open') {
      throw new Invalid('a review of a closed pull request cannot be dismissed');
    }
    const message = checkBody(input.message);
    const all = await this.#deps.store.listByPull(context.pull.id, undefined);
    const ids = all
      .filter(
        (other) =>
          other.id === review.id ||
          (input.priors &&
            other.reviewerId === review.reviewerId &&
            other.createdAt <= review.createdAt &&
            (other.state === 'APPROVED' || other.state === 'REQUEST_CHANGES')),
      )
      .map((other) => other.id);
    const at = Date.now();
    await this.#deps.store.setDismissed(ids, { dismissed: true, byId: actor.id, message, at });
    return {
      context,
      review: { ...review, dismissed: true, dismissedById: actor.id, dismissMessage: message },
    };
  }

  async #submit(
    actor: User,
    context: PullInContext,
    review: PullReview,
    event: ReviewVerdict,
    body: string,
  ): Promise<PullReview> {
    const commitId = await this.#deps.pulls.currentHead(context);
    const official = event !== 'COMMENT' && (await this.#deps.official(context, actor));
    const at = monotonicNow().getTime();
    const change = { state: event, body, commitId, official, at };
    if (!(await this.#deps.store.submit(review.id, change))) {
      throw new Invalid('only a pending review can be submitted');
    }
    const submitted: PullReview = {
      ...review,
      state: event,
      body,
      commitId,
      official,
      updatedAt: new Date(at),
      submittedAt: new Date(at),
    };
    const comments = await this.#deps.comments.listOfReview(review.id);
    await this.#deps.events?.publish('review.submitted', {
      context,
      review: submitted,
      comments,
      actor,
    });
    return submitted;
  }

  async #addLine(
    actor: User,
    context: PullInContext,
    reviewId: string,
    line: NewReviewLineComment,
  ) {
    const onNew = line.newLine !== undefined && line.newLine > 0;
    await this.#deps.comments.addToReview(actor, context, reviewId, {
      body: line.body,
      path: line.path,
      side: onNew ? 'RIGHT' : 'LEFT',
      ...(onNew ? { line: line.newLine } : { oldLine: line.oldLine }),
    });
  }

  async #find(context: PullInContext, viewer: User | undefined, id: number): Promise<PullReview> {
    const review = await this.#deps.store.findByWireId(context.pull.id, id);
    if (!review || (review.state === 'PENDING' && review.reviewerId !== viewer?.id)) {
      throw new NotFound(`review does not exist [id: ${id}]`);
    }
    return review;
  }
}
