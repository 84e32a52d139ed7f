import { findBranch } from '../../git/refs.ts';
import type { RemoteFetchOptions } from '../../git/remote-fetch.ts';
import type { Pull } from '../pulls/pull.types.ts';
import type { RemotePullService } from '../pulls/remote-pulls.service.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { LocalActors } from './local-actors.ts';
import type { ProposalGate } from './proposal-gate.ts';
import { Refused, Unfetchable, withProposedHead } from './proposed-head.ts';
import { readUpdate } from './pull-offers.ts';
import type { RemoteDocuments } from './remote-documents.ts';
import { readRemoteRepository, sameHost } from './remote-repository.ts';

/** How long a new head whose fork cannot be reached is tried again (the fork's server away). */
const RETRY_FOR_MS = 2 * 86_400_000;

/** An `Update{Ticket}` waiting in the queue for the worker (the fetch takes time). */
export type TicketUpdateMessage = {
  readonly kind: 'ticket-update';
  readonly sender: string;
  readonly activity: Record<string, unknown>;
  readonly receivedAt: number;
};

export type IncomingUpdatesDeps = {
  readonly actors: LocalActors;
  readonly documents: RemoteDocuments;
  readonly repos: Pick<RepoService, 'handle' | 'findById'>;
  readonly pulls: Pick<RemotePullService, 'openedBy' | 'proposalOf' | 'numbered' | 'advance'>;
  readonly gate: ProposalGate;
  readonly reach: (cloneUri: string) => Promise<RemoteFetchOptions>;
};

/**
 * New commits on the branch of a pull request proposed from another server, told by
 * `Update{Ticket}`. Invariant: only the person whose offer opened the pull moves its head (the
 * activity's signer, checked by the inbox, must be the offer's actor, and the branch must be the
 * one proposed, in a repository on that person's server); anyone else's update is ignored. The
 * branch is fetched again through `withProposedHead`, under the same reach, pinning and size
 * limits as the first fetch, and the gate (blocks, visibility) is asked afresh. A fork that
 * cannot be reached is tried again for two days; a head over the limits is dropped.
 */
export class IncomingUpdatesService {
  readonly #deps: IncomingUpdatesDeps;

  constructor(deps: IncomingUpdatesDeps) {
    this.#deps = deps;
  }

  async run({ sender, activity, receivedAt }: TicketUpdateMessage): Promise<void> {
    const update = readUpdate(activity);
    if (!update || update.actor !== sender) return;
    const found = await this.#pull(update.ticket);
    if (found?.pull.state !== 'open') return;
    const { repo, pull } = found;
    const proposal = await this.#deps.pulls.proposalOf(pull);
    if (proposal?.author.actor !== sender) return;
    if (update.origin.branch !== pull.headBranch || !sameHost(update.origin.repo, sender)) return;
    if (!(await this.#deps.gate.mayPropose(sender, repo.id)).ok) return;
    try {
      const fork = await readRemoteRepository(this.#deps.documents, update.origin.repo);
      const reach = await this.#deps.reach(fork.cloneUri);
      const handle = this.#deps.repos.handle(repo);
      const baseSha = await findBranch(handle, pull.baseBranch);
      if (!baseSha) return;
      await withProposedHead(
        handle,
        { cloneUri: fork.cloneUri, branch: pull.headBranch, reach },
        baseSha,
        (headSha) => this.#deps.pulls.advance(repo, pull, headSha),
      );
    } catch (error) {
      // What the limits refuse stays refused; an unreachable fork is tried again for a while.
      if (error instanceof Refused && !(error instanceof Unfetchable)) return;
      if (Date.now() - receivedAt < RETRY_FOR_MS) throw error;
    }
  }

  /** The pull a ticket id names: its page here, or the offer that opened it. */
  async #pull(ticket: string): Promise<{ repo: Repository; pull: Pull } | undefined> {
    const offered = await this.#deps.pulls.openedBy(ticket);
    if (offered) {
      const repo = await this.#deps.repos.findById(offered.repoId);
      return repo ? { repo, pull: offered } : undefined;
    }
    const prefix = `${this.#deps.actors.urls.base}/`;
    if (!ticket.startsWith(prefix)) return undefined;
    const match = /^([^/]+)\/([^/]+)\/pulls\/(\d{1,9})$/.exec(ticket.slice(prefix.length));
    if (!match) return undefined;
    const [, owner = '', name = '', number = '0'] = match;
    const actor = await Promise.resolve()
      .then(() =>
        this.#deps.actors.get({
          kind: 'repo',
          owner: decodeURIComponent(owner),
          name: decodeURIComponent(name),
        }),
      )
      .catch(() => undefined);
    if (actor?.kind !== 'repo') return undefined;
    const pull = await this.#deps.pulls.numbered(actor.repo, Number(number));
    return pull ? { repo: actor.repo, pull } : undefined;
  }
}
