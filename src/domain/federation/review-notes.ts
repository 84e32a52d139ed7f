import type { DomainEvents } from '../events.ts';
import type { IncomingPullsService } from './incoming-pulls.service.ts';
import type { LocalActors } from './local-actors.ts';
import { createNoteActivity } from './pull-notes.ts';

/**
 * Review comments made here on a pull request proposed from another server go to its proposer
 * as `Create{Note}` from the repository (`inReplyTo` the pull request, `context` the line), so
 * the proposer's server shows them beside the proposal. Only while the repository is public.
 */
export class ReviewNotes {
  readonly #actors: LocalActors;
  readonly #offers: Pick<IncomingPullsService, 'tellProposer'>;

  constructor(deps: {
    actors: LocalActors;
    offers: Pick<IncomingPullsService, 'tellProposer'>;
  }) {
    this.#actors = deps.actors;
    this.#offers = deps.offers;
  }

  /** Queues the note of a line comment on a pull proposed from elsewhere (else nothing). */
  commented({ context, comment, actor }: DomainEvents['review-comment.created']): Promise<void> {
    const author = this.#actors.urls.user(actor.handle);
    return this.#offers.tellProposer(context.base.repo, context.pull, (from, to, url) =>
      createNoteActivity(`${from.id}#notes/${comment.id}`, from.id, to, {
        id: `${url}/files#comment-${comment.id}`,
        attributedTo: author,
        inReplyTo: url,
        content: comment.body,
        anchor: { path: comment.path, line: comment.line ?? comment.oldLine },
        published: comment.createdAt.toISOString(),
      }),
    );
  }
}
