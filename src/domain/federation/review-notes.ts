import type { DomainEvents } from '../events.ts';
import type { PullInContext } from '../pulls/pull.service.ts';
import type { ReviewVerdict } from '../pulls/pull-review.types.ts';
import type { ReviewComment } from '../pulls/review-comment.types.ts';
import type { IncomingPullsService } from './incoming-pulls.service.ts';
import type { LocalActors } from './local-actors.ts';
import {
  deleteNoteActivity,
  noteActivity,
  type PullNote,
  type ReviewNoteState,
} from './pull-notes.ts';
import type { SentNotesStore } from './sent-notes.store.ts';

const STATE_OF: Record<ReviewVerdict, ReviewNoteState> = {
  APPROVED: 'approved',
  REQUEST_CHANGES: 'changes_requested',
  COMMENT: 'commented',
};

/**
 * Comments made here on a pull request proposed from another server go to its proposer as
 * `Create{Note}` from the repository: a line comment `inReplyTo` the pull request (a reply in a
 * thread, the note of the comment it answers) with `context` the line; a submitted review's body
 * with `reviewState` naming its verdict. Only while the repository is public.
 * Invariant: each comment or review goes out once (`SentNotesStore.claim`, keyed by it), to the
 * proposer it was sent to; its edits follow as `Update` and its deletion as `Delete` of the same
 * note, and nothing is sent about a comment that never went out.
 */
export class ReviewNotes {
  readonly #actors: LocalActors;
  readonly #offers: Pick<IncomingPullsService, 'proposerOf' | 'send'>;
  readonly #sent: SentNotesStore;

  constructor(deps: {
    actors: LocalActors;
    offers: Pick<IncomingPullsService, 'proposerOf' | 'send'>;
    sent: SentNotesStore;
  }) {
    this.#actors = deps.actors;
    this.#offers = deps.offers;
    this.#sent = deps.sent;
  }

  /** Queues the note of a line comment on a pull proposed from elsewhere (else nothing). */
  commented({ context, comment, actor }: DomainEvents['review-comment.created']): Promise<void> {
    return this.#send(context, comment, actor.handle);
  }

  /** A review was submitted: its body (when it has one), then each line comment it carries. */
  async reviewed({ context, review, comments, actor }: DomainEvents['review.submitted']) {
    const { state } = review;
    if (review.body.trim() !== '' && state !== 'PENDING') {
      await this.#claimAndSend(context, `review:${review.id}`, (url) => ({
        id: `${url}#review-${review.id}`,
        attributedTo: this.#actors.urls.user(actor.handle),
        inReplyTo: url,
        content: review.body,
        anchor: null,
        published: (review.submittedAt ?? review.updatedAt).toISOString(),
        reviewState: STATE_OF[state],
      }));
    }
    for (const comment of comments) await this.#send(context, comment, actor.handle);
  }

  /** An edited comment that went out: `Update` of its note, with the new body. */
  async updated({ context, comment, actor }: DomainEvents['review-comment.updated']) {
    const sent = await this.#sent.find(`comment:${comment.id}`);
    const proposer = sent && (await this.#offers.proposerOf(context.base.repo, context.pull));
    if (!sent || !proposer) return;
    const parent = await this.#parentNote(comment);
    const note = this.#note(comment, actor.handle, sent.noteId, parent ?? proposer.url);
    const id = `${proposer.from.id}#notes/${comment.id}/${comment.updatedAt.getTime()}`;
    await this.#offers.send(
      proposer.from,
      sent.recipient,
      noteActivity('Update', id, proposer.from.id, sent.recipient, note),
    );
  }

  /** A deleted comment that went out: `Delete` of its note. */
  async deleted({ context, comment }: DomainEvents['review-comment.deleted']) {
    const sent = await this.#sent.find(`comment:${comment.id}`);
    if (!sent || !(await this.#sent.forget(sent.source))) return;
    const proposer = await this.#offers.proposerOf(context.base.repo, context.pull);
    if (!proposer) return;
    const id = `${proposer.from.id}#notes/${comment.id}/delete`;
    await this.#offers.send(
      proposer.from,
      sent.recipient,
      deleteNoteActivity(id, proposer.from.id, sent.recipient, sent.noteId),
    );
  }

  async #send(context: PullInContext, comment: ReviewComment, handle: string): Promise<void> {
    const parent = await this.#parentNote(comment);
    await this.#claimAndSend(context, `comment:${comment.id}`, (url) =>
      this.#note(comment, handle, `${url}/files#comment-${comment.id}`, parent ?? url),
    );
  }

  /** Sends the note `make` builds for a source not sent before (claimed first: once only). */
  async #claimAndSend(
    context: PullInContext,
    source: string,
    make: (url: string) => PullNote,
  ): Promise<void> {
    const proposer = await this.#offers.proposerOf(context.base.repo, context.pull);
    if (!proposer) return;
    const note = make(proposer.url);
    const claimed = await this.#sent.claim({
      source,
      pullId: context.pull.id,
      noteId: note.id,
      recipient: proposer.to,
    });
    if (!claimed) return;
    const id = `${proposer.from.id}#notes/${source.replace(':', '-')}`;
    try {
      await this.#offers.send(
        proposer.from,
        proposer.to,
        noteActivity('Create', id, proposer.from.id, proposer.to, note),
      );
    } catch (error) {
      // Not queued, so not sent: the claim goes, or later edits would update a note never seen.
      await this.#sent.forget(source);
      throw error;
    }
  }

  /** The note of the comment `comment` replies to, when that one went out. */
  async #parentNote(comment: ReviewComment): Promise<string | undefined> {
    if (!comment.inReplyToId) return undefined;
    return (await this.#sent.find(`comment:${comment.inReplyToId}`))?.noteId;
  }

  #note(comment: ReviewComment, handle: string, id: string, inReplyTo: string): PullNote {
    return {
      id,
      attributedTo: this.#actors.urls.user(handle),
      inReplyTo,
      content: comment.body,
      anchor: { path: comment.path, line: comment.line ?? comment.oldLine },
      published: comment.createdAt.toISOString(),
      reviewState: null,
    };
  }
}
