import { setRef } from '../../git/pull-refs.ts';
import { newId } from '../../lib/ids.ts';
import type { EventPublisher } from '../events.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import {
  REMOTE_AUTHOR_ID,
  type RemoteAuthor,
  remoteAuthorAccount,
} from '../users/remote-author.ts';
import { checkText } from './pull.service.ts';
import type { PullStore } from './pull.store.ts';
import { type Pull, pullHeadRef } from './pull.types.ts';
import type { RemoteAuthorStore } from './remote-author.store.ts';

/** A pull request proposed from another server, its head commit already in the base. */
export type ProposedPull = {
  /** The id of the activity that proposed it: one offer opens one pull. */
  readonly offerId: string;
  readonly author: RemoteAuthor;
  readonly title: string;
  readonly body: string;
  readonly baseBranch: string;
  /** The proposer's branch name, for the record; the head lives in `refs/pull/N/head`. */
  readonly headBranch: string;
  readonly headSha: string;
};

/** What opening a remote pull writes to. */
export type RemotePullDeps = {
  readonly store: PullStore;
  readonly authors: RemoteAuthorStore;
  readonly repos: Pick<RepoService, 'handle'>;
  readonly events?: EventPublisher | undefined;
};

/**
 * Pull requests whose author is on another server. They are filed under the remote author
 * account (remote-author.ts), with no head repository here: their head is only the base's
 * `refs/pull/N/head`, as for a pull whose fork was deleted. So CI never runs them of itself (a
 * pull without a head repository triggers nothing) and the author never holds a permission.
 */
export class RemotePullService {
  readonly #deps: RemotePullDeps;

  constructor(deps: RemotePullDeps) {
    this.#deps = deps;
  }

  /** The pull an offer opened before, when it did. */
  async openedBy(offerId: string): Promise<Pull | undefined> {
    const pullId = await this.#deps.authors.pullOfOffer(offerId);
    return pullId === undefined ? undefined : this.#deps.store.findById(pullId);
  }

  /** Opens the pull into `base`; its head commit must already be in the base repository. */
  async open(base: Repository, proposed: ProposedPull): Promise<Pull> {
    checkText(proposed.title, proposed.body);
    const { store, authors, repos } = this.#deps;
    const pull = await store.insertNumbered({
      id: newId(),
      repoId: base.id,
      title: proposed.title.trim(),
      body: proposed.body,
      authorId: REMOTE_AUTHOR_ID,
      headRepoId: null,
      headBranch: proposed.headBranch,
      headSha: proposed.headSha,
      baseBranch: proposed.baseBranch,
      createdAt: Date.now(),
    });
    await setRef(repos.handle(base), pullHeadRef(pull.number), proposed.headSha);
    await authors.insert(pull.id, proposed.author, proposed.offerId);
    await this.#deps.events?.publish('pull', {
      action: 'opened',
      context: { base, head: null, pull },
      actor: remoteAuthorAccount,
      merged: false,
    });
    return pull;
  }

  /** Pull request `number` of `base`, when there is one. */
  numbered(base: Pick<Repository, 'id'>, number: number): Promise<Pull | undefined> {
    return this.#deps.store.findByNumber(base.id, number);
  }

  /**
   * Moves the head of `pull`, proposed from elsewhere, to `headSha` (already in the base) and
   * announces `synchronized` as a push to a local head branch does, so the timeline, webhooks
   * and reviews see the new commits. False when the head was already there or moved meanwhile.
   */
  async advance(base: Repository, pull: Pull, headSha: string): Promise<boolean> {
    if (pull.state !== 'open' || pull.headSha === headSha) return false;
    await setRef(this.#deps.repos.handle(base), pullHeadRef(pull.number), headSha);
    if (!(await this.#deps.store.advanceHead(pull.id, pull.headSha, headSha))) return false;
    await this.#deps.events?.publish('pull', {
      action: 'synchronized',
      context: { base, head: null, pull: { ...pull, headSha } },
      actor: remoteAuthorAccount,
      merged: false,
      previousHeadSha: pull.headSha,
    });
    return true;
  }

  /** The offer that opened `pull` and its remote author, when it was proposed from elsewhere. */
  async proposalOf(
    pull: Pick<Pull, 'id' | 'authorId'>,
  ): Promise<{ author: RemoteAuthor; offerId: string } | undefined> {
    if (pull.authorId !== REMOTE_AUTHOR_ID) return undefined;
    return this.#deps.authors.proposalOf(pull.id);
  }

  /** The remote authors of those of `pulls` that have one, by pull id. */
  authorsOf(pulls: readonly Pick<Pull, 'id' | 'authorId'>[]): Promise<Map<string, RemoteAuthor>> {
    const remote = pulls.filter((pull) => pull.authorId === REMOTE_AUTHOR_ID);
    return this.#deps.authors.forPulls(remote.map((pull) => pull.id));
  }
}
