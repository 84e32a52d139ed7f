import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { diffCommits, mergeBase } from '../../git/diff.ts';
import { isAncestor, resolveCommit } from '../../git/refs.ts';
import { newId } from '../../lib/ids.ts';
import { monotonicNow } from '../../lib/time.ts';
import { Forbidden, Invalid, NotFound } from '../errors.ts';
import type { EventPublisher } from '../events.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { User } from '../users/user.types.ts';
import { mayChangeReviewComment, mayCommentOnPull, mayResolveReviewThread } from './pull.policy.ts';
import type { PullInContext, PullService } from './pull.service.ts';
import type { PullStore } from './pull.store.ts';
import { anchorInDiff, fileInDiff, type Side } from './review-anchor.ts';
import type { ReviewCommentStore } from './review-comment.store.ts';
import type { ReviewComment } from './review-comment.types.ts';
import { threadOf } from './review-threads.ts';

export type { ReviewComment };

/** What review comments read and write, and the services they build on. */
export type ReviewCommentDeps = {
  readonly store: ReviewCommentStore;
  readonly pullStore: Pick<PullStore, 'findById'>;
  readonly pulls: PullService;
  readonly repos: RepoService;
  readonly catFiles: CatFilePool;
  /** Where each new comment is announced (`review-comment.created`). */
  readonly events: EventPublisher;
};

export type NewReviewComment = {
  readonly body: string;
  readonly path?: string | undefined;
  readonly line?: number | undefined;
  readonly oldLine?: number | undefined;
  readonly side?: Side | undefined;
  readonly commitId?: string | undefined;
  /** The wire id of the comment this one answers; it gives path, line and commit. */
  readonly inReplyTo?: number | undefined;
};

const MAX_BODY_BYTES = 65_536;

/**
 * Line-review comments on a pull's diff. A comment names a file and a line on one side of the
 * diff at a commit of the pull; both must exist in that diff. Comments keep their commit, so
 * later pushes never move them.
 */
export class ReviewCommentService {
  readonly #store: ReviewCommentStore;
  readonly #pullStore: Pick<PullStore, 'findById'>;
  readonly #pulls: PullService;
  readonly #repos: RepoService;
  readonly #catFiles: CatFilePool;
  readonly #events: EventPublisher;

  constructor(deps: ReviewCommentDeps) {
    this.#store = deps.store;
    this.#pullStore = deps.pullStore;
    this.#pulls = deps.pulls;
    this.#repos = deps.repos;
    this.#catFiles = deps.catFiles;
    this.#events = deps.events;
  }

  async list(viewer: User | undefined, owner: string, name: string, number: number) {
    const context = await this.#pulls.get(viewer, owner, name, number);
    return { context, comments: await this.listOf(context, viewer) };
  }

  /**
   * The comments of a pull already looked up for the caller (`PullService.get` answers only a
   * caller who may see it), so a page that has the pull does not look it up again. The
   * comments of a pending review are shown to its reviewer alone.
   */
  async listOf(context: PullInContext, viewer?: User): Promise<ReviewComment[]> {
    return this.#store.listByPull(context.pull.id, viewer?.id);
  }

  /** The line comments a review carries, oldest first. */
  async listOfReview(reviewId: string): Promise<ReviewComment[]> {
    return this.#store.listByReview(reviewId);
  }

  /**
   * Adds a line comment to a review (pending or being submitted), anchored as a lone comment
   * is. Not announced: a review is announced as a whole once submitted.
   */
  async addToReview(
    actor: User,
    context: PullInContext,
    reviewId: string,
    input: NewReviewComment,
  ): Promise<ReviewComment> {
    return this.#insert(actor, context, input, reviewId);
  }

  async create(actor: User, owner: string, name: string, number: number, input: NewReviewComment) {
    const context = await this.#pulls.get(actor, owner, name, number);
    // Seeing the pull is what commenting takes today; the rule is kept in one place regardless.
    if (!mayCommentOnPull(actor, context.base.access)) {
      throw new Forbidden('you may not comment on this pull request');
    }
    const comment = await this.#insert(actor, context, input, null);
    await this.#events.publish('review-comment.created', { context, comment, actor });
    return { context, comment };
  }

  async #insert(
    actor: User,
    context: PullInContext,
    input: NewReviewComment,
    reviewId: string | null,
  ): Promise<ReviewComment> {
    const body = input.body;
    if (body.trim() === '' || Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) {
      throw new Invalid('body must be 1 byte to 64 KiB');
    }
    const parent =
      input.inReplyTo === undefined
        ? undefined
        : await this.#findInPull(context, input.inReplyTo, actor);
    const anchor = parent
      ? {
          path: parent.path,
          side: parent.side,
          line: parent.line,
          oldLine: parent.oldLine,
          commitId: parent.commitId,
          hunk: parent.diffHunk,
        }
      : await this.#anchor(context, input);
    const now = monotonicNow();
    return this.#store.insert({
      id: newId(),
      pullId: context.pull.id,
      repoId: context.base.repo.id,
      authorId: actor.id,
      body,
      path: anchor.path,
      line: anchor.line,
      oldLine: anchor.oldLine,
      side: anchor.side,
      commitId: anchor.commitId,
      originalCommitId: anchor.commitId,
      diffHunk: anchor.hunk,
      inReplyToId: parent?.id ?? null,
      createdAt: now,
      updatedAt: now,
      resolvedById: null,
      resolvedAt: null,
      reviewId,
    });
  }

  async update(actor: User, owner: string, name: string, wireId: number, body: string) {
    const { comment, context } = await this.#findForChange(actor, owner, name, wireId);
    if (body.trim() === '' || Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) {
      throw new Invalid('body must be 1 byte to 64 KiB');
    }
    const now = new Date();
    await this.#store.updateBody(comment.id, body, now.getTime());
    const updated = { ...comment, body, updatedAt: now };
    await this.#events.publish('review-comment.updated', { context, comment: updated, actor });
    return { context, comment: updated };
  }

  /**
   * Deletes a comment. When it started a resolved thread that goes on, the next comment takes
   * the resolution over, so deleting the first comment does not reopen the thread.
   */
  async delete(actor: User, owner: string, name: string, wireId: number): Promise<void> {
    const { comment, context } = await this.#findForChange(actor, owner, name, wireId);
    const thread = threadOf(await this.#store.listByPull(comment.pullId), comment);
    const next = thread?.comments.find((c) => c.id !== comment.id);
    if (thread?.first.id === comment.id && thread.resolved && next) {
      await this.#store.setResolution(next.id, thread.resolved.byId, thread.resolved.at.getTime());
    }
    await this.#store.delete(comment.id);
    await this.#events.publish('review-comment.deleted', { context, comment, actor });
  }

  /**
   * Marks the thread of the comment with this wire id resolved by the actor, or open again. The
   * pull's author and writers may; anyone else who can see the pull is refused.
   */
  async resolve(actor: User, owner: string, name: string, wireId: number, resolved: boolean) {
    const { comment, context } = await this.#findInRepo(actor, owner, name, wireId);
    if (!mayResolveReviewThread(actor, context.base.access, context.pull)) {
      throw new Forbidden("only the pull request's author or a writer may resolve its threads");
    }
    const thread = threadOf(await this.#store.listByPull(comment.pullId), comment);
    if (!thread) throw new NotFound(`review comment does not exist [id: ${wireId}]`);
    await this.#store.setResolution(
      thread.first.id,
      resolved ? actor.id : null,
      resolved ? Date.now() : null,
    );
    return { context, first: thread.first };
  }

  /** The comment with this wire id in the repository, for its author or a writer. */
  async #findForChange(actor: User, owner: string, name: string, wireId: number) {
    const found = await this.#findInRepo(actor, owner, name, wireId);
    if (!mayChangeReviewComment(actor, found.context.base.access, found.comment)) {
      throw new Forbidden('only the author or a writer may change this comment');
    }
    return found;
  }

  /** The comment with this wire id in a repository the actor can see, and its pull. */
  async #findInRepo(actor: User, owner: string, name: string, wireId: number) {
    const base = await this.#repos.get(actor, owner, name);
    const comment = await this.#store.findInRepoByWireId(base.repo.id, wireId, actor.id);
    if (!comment) throw new NotFound(`review comment does not exist [id: ${wireId}]`);
    const pull = await this.#pullStore.findById(comment.pullId);
    if (!pull) throw new NotFound(`review comment does not exist [id: ${wireId}]`);
    const context = await this.#pulls.get(actor, owner, name, pull.number);
    return { comment, context };
  }

  async #findInPull(context: PullInContext, wireId: number, actor: User) {
    const comment = await this.#store.findInPullByWireId(context.pull.id, wireId, actor.id);
    if (!comment)
      throw new Invalid(
        `in_reply_to_id does not name a comment of this pull request [id: ${wireId}]`,
      );
    return comment;
  }

  /** Checks path, side and line against the pull's diff at the commit and cuts the hunk. */
  async #anchor(context: PullInContext, input: NewReviewComment) {
    if (!input.path) throw new Invalid('path is required');
    const side: Side =
      input.side ?? (input.line === undefined && input.oldLine !== undefined ? 'LEFT' : 'RIGHT');
    const line = side === 'RIGHT' ? input.line : (input.oldLine ?? input.line);
    if (line === undefined || !Number.isSafeInteger(line) || line < 1) {
      throw new Invalid(
        side === 'RIGHT'
          ? 'line must be a positive line number'
          : 'old_line must be a positive line number',
      );
    }
    const handle = this.#repos.handle(context.base.repo);
    const pullHead = await this.#pulls.currentHead(context);
    const commitId = input.commitId
      ? await resolveCommit(this.#catFiles, handle, input.commitId).catch(() => {
          throw new Invalid('commit_id is not a commit of this pull request');
        })
      : pullHead;
    if (commitId !== pullHead && !(await isAncestor(handle, commitId, pullHead))) {
      throw new Invalid('commit_id is not a commit of this pull request');
    }
    const baseTip = await this.#pulls.branchTip(context.base.repo, context.pull.baseBranch);
    const from = (baseTip && (await mergeBase(handle, baseTip, commitId))) ?? undefined;
    const diff = await diffCommits(this.#catFiles, handle, {
      ...(from ? { from } : {}),
      to: commitId,
      maxLines: 100_000,
    });
    const file = fileInDiff(diff.files, input.path);
    if (!file)
      throw new Invalid(`path is not part of the pull request's diff [path: ${input.path}]`);
    const hunk = anchorInDiff(file, side, line);
    if (hunk === undefined)
      throw new Invalid(`line ${line} (${side}) of ${input.path} is not part of the diff`);
    return {
      path: input.path,
      side,
      line: side === 'RIGHT' ? line : null,
      oldLine: side === 'LEFT' ? line : null,
      commitId,
      hunk,
    };
  }
}
