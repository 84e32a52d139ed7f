import { randomUUID } from 'node:crypto';
import { findBranch } from '../../git/refs.ts';
import type { RemoteFetchOptions } from '../../git/remote-fetch.ts';
import { isRecord } from '../../lib/narrow.ts';
import { isDomainError } from '../errors.ts';
import type { Pull } from '../pulls/pull.types.ts';
import type { RemotePullService } from '../pulls/remote-pulls.service.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { RemoteAuthor } from '../users/remote-author.ts';
import type { DeliveryMessage } from './delivery.ts';
import type { LocalActor, LocalActors } from './local-actors.ts';
import type { KyselyMessageQueue } from './message-queue.ts';
import type { ProposalGate } from './proposal-gate.ts';
import { Refused, withProposedHead } from './proposed-head.ts';
import {
  acceptOfferActivity,
  type PullOffer,
  readOffer,
  rejectOfferActivity,
  resolveActivity,
} from './pull-offers.ts';
import type { RemoteActors } from './remote-actors.ts';
import type { RemoteDocuments } from './remote-documents.ts';
import { readRemoteRepository, sameHost } from './remote-repository.ts';

/** Who proposed a pull from elsewhere, and the repository actor that speaks to them. */
export type ProposerOf = {
  readonly from: LocalActor;
  readonly to: string;
  readonly url: string;
  readonly offerId: string;
};

/** An offer waiting in the queue for the worker (received by an inbox, answered from there). */
export type OfferMessage = {
  readonly kind: 'offer';
  readonly sender: string;
  readonly activity: Record<string, unknown>;
};

export type IncomingPullsDeps = {
  readonly actors: LocalActors;
  readonly remote: Pick<RemoteActors, 'get'>;
  readonly documents: RemoteDocuments;
  readonly repos: Pick<RepoService, 'handle'>;
  readonly pulls: Pick<RemotePullService, 'open' | 'openedBy' | 'proposalOf'>;
  readonly queue: KyselyMessageQueue;
  readonly gate: ProposalGate;
  /** How git may reach a clone address (checked and pinned; Invalid when it may not). */
  readonly reach: (cloneUri: string) => Promise<RemoteFetchOptions>;
};

/**
 * Pull requests proposed from other servers (ForgeFed `Offer{Ticket}`). An offer is taken only
 * for a public repository here, from a person whose server also holds the fork named as
 * `origin` (a public repository whose clone address Kiln may fetch from), and only when the gate
 * lets the person propose. The branch is fetched from the fork into `refs/pull/N/head` (patches
 * are not applied: a fork Kiln cannot fetch from is refused), checked against the limits every
 * pull obeys, and the pull is opened under the remote author account. The answer is an `Accept`
 * whose `result` is the pull's page, or a `Reject` with the reason; an offer delivered again is
 * answered again, never opened twice.
 */
export class IncomingPullsService {
  readonly #deps: IncomingPullsDeps;

  constructor(deps: IncomingPullsDeps) {
    this.#deps = deps;
  }

  /** The gate offers pass (updates of what they opened pass it too). */
  get gate(): ProposalGate {
    return this.#deps.gate;
  }

  /** Runs an offer the inbox queued (the fetch takes time an inbox request must not wait). */
  async run({ sender, activity }: OfferMessage): Promise<void> {
    const offer = readOffer(activity);
    const target = typeof offer === 'string' ? undefined : await this.#local(offer.target.repo);
    const answerer = target ?? (await this.#deps.actors.get({ kind: 'instance' }));
    const offerId = typeof offer === 'string' ? String(activity.id ?? '') : offer.id;
    try {
      if (typeof offer === 'string') throw new Refused(offer);
      if (offer.actor !== sender) throw new Refused('an offer is sent by the person proposing');
      if (!target)
        throw new Refused(`${offer.target.repo} is not a repository here that takes pull requests`);
      const url = await this.#open(sender, offer, target);
      await this.#answer(
        answerer,
        sender,
        acceptOfferActivity(this.#newId(answerer), answerer.id, offer, url),
      );
    } catch (error) {
      if (!(error instanceof Refused) && !isDomainError(error)) throw error;
      const reason = error.message.slice(0, 500);
      await this.#answer(
        answerer,
        sender,
        rejectOfferActivity(this.#newId(answerer), answerer.id, sender, offerId, reason),
      );
    }
  }

  /**
   * A pull proposed from elsewhere was closed here: its proposer's server is told, `Resolve` of
   * the pull request (its page) when merged, `Reject` of the offer when closed without merging,
   * from the repository while it is public (a private one tells nothing, as it federates nothing).
   */
  pullClosed(base: Repository, pull: Pull, merged: boolean): Promise<void> {
    return this.tellProposer(base, pull, (from, to, url, offerId) =>
      merged
        ? resolveActivity(this.#newId(from), from.id, to, url)
        : rejectOfferActivity(this.#newId(from), from.id, to, offerId, 'closed without merging'),
    );
  }

  /**
   * Sends the proposer of `pull` the activity `build` makes, from the repository while it is
   * public (a private one tells nothing, as it federates nothing); nothing for a local pull.
   * `build` gets the repository's actor, the proposer, the pull's page and the offer's id.
   */
  async tellProposer(
    base: Repository,
    pull: Pull,
    build: (from: LocalActor, to: string, url: string, offerId: string) => object,
  ): Promise<void> {
    const found = await this.proposerOf(base, pull);
    if (found)
      await this.send(found.from, found.to, build(found.from, found.to, found.url, found.offerId));
  }

  /**
   * Who proposed `pull` from another server and what speaks to them: the repository's actor
   * (`from`, while the repository is public), the proposer (`to`), the pull's page and the
   * offer's id. Undefined for a local pull, or a repository that federates nothing now.
   */
  async proposerOf(base: Repository, pull: Pull): Promise<ProposerOf | undefined> {
    const proposal = await this.#deps.pulls.proposalOf(pull);
    if (!proposal) return undefined;
    const from = await this.#local(this.#deps.actors.ofRepo(base).id);
    if (!from) return undefined;
    const url = this.#pullUrl(base, pull.number);
    return { from, to: proposal.author.actor, url, offerId: proposal.offerId };
  }

  /** Queues `activity`, signed by `from`, to the inbox of the remote actor `to`. */
  send(from: LocalActor, to: string, activity: object): Promise<void> {
    return this.#answer(from, to, activity);
  }

  async #open(
    sender: string,
    offer: PullOffer,
    target: Extract<LocalActor, { kind: 'repo' }>,
  ): Promise<string> {
    const { repo } = target;
    const earlier = await this.#deps.pulls.openedBy(offer.id);
    if (earlier) return this.#pullUrl(repo, earlier.number);
    const answer = await this.#deps.gate.mayPropose(sender, repo.id);
    if (!answer.ok) throw new Refused(answer.reason);
    if (!sameHost(offer.origin.repo, sender)) {
      throw new Refused('the origin branch must be in a repository on the proposer’s server');
    }
    const fork = await readRemoteRepository(this.#deps.documents, offer.origin.repo);
    const reach = await this.#deps.reach(fork.cloneUri);
    const handle = this.#deps.repos.handle(repo);
    const baseSha = await findBranch(handle, offer.target.branch);
    if (!baseSha) throw new Refused(`${offer.target.branch} is not a branch of ${repo.name}`);
    return withProposedHead(
      handle,
      { cloneUri: fork.cloneUri, branch: offer.origin.branch, reach },
      baseSha,
      async (headSha) => {
        const pull = await this.#deps.pulls.open(repo, {
          offerId: offer.id,
          author: await this.#author(sender),
          title: offer.title,
          body: offer.body,
          baseBranch: offer.target.branch,
          headBranch: offer.origin.branch,
          headSha,
        });
        return this.#pullUrl(repo, pull.number);
      },
    );
  }

  /** Who proposed: `name@host` from their actor, and their avatar when on their own server. */
  async #author(actor: string): Promise<RemoteAuthor> {
    const { document } = await this.#deps.documents.loader(actor);
    const person = isRecord(document) ? document : {};
    const fallback = new URL(actor).pathname.split('/').filter(Boolean).pop() ?? 'someone';
    const name =
      typeof person.preferredUsername === 'string' &&
      /^[\w.-]{1,64}$/.test(person.preferredUsername)
        ? person.preferredUsername
        : fallback;
    const icon = isRecord(person.icon) ? person.icon.url : undefined;
    const avatarUrl = typeof icon === 'string' && sameHost(icon, actor) ? icon : null;
    return { actor, login: `${name}@${new URL(actor).host}`, avatarUrl };
  }

  #pullUrl(repo: Repository, number: number): string {
    const { base } = this.#deps.actors.urls;
    return `${base}/${encodeURIComponent(repo.owner.handle)}/${encodeURIComponent(repo.name)}/pulls/${number}`;
  }

  #newId(actor: LocalActor): string {
    return `${actor.id}#offers/${randomUUID()}`;
  }

  async #answer(signer: LocalActor, to: string, activity: object): Promise<void> {
    const message: DeliveryMessage = {
      kind: 'deliver',
      signer: signer.key,
      signerId: signer.id,
      inbox: (await this.#deps.remote.get(to)).inbox,
      activity,
    };
    await this.#deps.queue.enqueue(message);
  }

  /** The public repository here an id names; undefined when it is not one (private or missing). */
  async #local(id: string): Promise<Extract<LocalActor, { kind: 'repo' }> | undefined> {
    const ref = this.#deps.actors.urls.parse(id);
    if (ref?.kind !== 'repo') return undefined;
    const actor = await this.#deps.actors.get(ref).catch(() => undefined);
    return actor?.kind === 'repo' ? actor : undefined;
  }
}
