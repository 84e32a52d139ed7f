import type { RemoteFetchOptions } from '../../git/remote-fetch.ts';
import type { RemotePullService } from '../pulls/remote-pulls.service.ts';
import type { RepoService } from '../repos/repo.service.ts';
import { IncomingPullsService, type OfferMessage } from './incoming-pulls.service.ts';
import { IncomingUpdatesService, type TicketUpdateMessage } from './incoming-updates.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { LocalActors } from './local-actors.ts';
import type { KyselyMessageQueue } from './message-queue.ts';
import { OutgoingPullsService } from './outgoing-pulls.service.ts';
import type { ProposalGate } from './proposal-gate.ts';
import { ProposalNotes } from './proposal-notes.ts';
import { type ProposalUpdateMessage, ProposalUpdates } from './proposal-updates.ts';
import type { RemoteActors } from './remote-actors.ts';
import type { RemoteDocuments } from './remote-documents.ts';
import { ReviewNotes } from './review-notes.ts';
import type { SentNotesStore } from './sent-notes.store.ts';

/** What pull requests across servers are built from: federation's shared parts. */
export type FederatedPullsDeps = {
  readonly actors: LocalActors;
  readonly remote: RemoteActors;
  readonly documents: RemoteDocuments;
  readonly repos: RepoService;
  readonly kv: KyselyKvStore;
  /** Which comments went out to remote proposers as which notes. */
  readonly sentNotes: SentNotesStore;
  readonly queue: KyselyMessageQueue;
  readonly remotePulls: Pick<
    RemotePullService,
    'open' | 'openedBy' | 'proposalOf' | 'numbered' | 'advance'
  >;
  /** Whether a remote actor may propose to a repository here (blocks, visibility). */
  readonly gate: ProposalGate;
  /** How git may reach a fork's clone address (checked and pinned). */
  readonly reach: (cloneUri: string) => Promise<RemoteFetchOptions>;
};

/** The queued work of pull requests across servers (the fetches an inbox must not wait for). */
export type PullMessage = OfferMessage | ProposalUpdateMessage | TicketUpdateMessage;

/** Both sides of pull requests proposed across servers, as `federatedPulls` builds them. */
export type FederatedPulls = {
  /** Pull requests proposed from local forks to their upstreams elsewhere. */
  readonly proposals: OutgoingPullsService;
  /** Pushes to proposed branches, told to their upstreams (`wiring/federation.ts`). */
  readonly proposalUpdates: ProposalUpdates;
  /** Pull requests other servers propose to local repositories. */
  readonly offers: IncomingPullsService;
  /** New heads of pull requests proposed from other servers. */
  readonly offerUpdates: IncomingUpdatesService;
  /** Review comments on proposals from here, as their upstreams send them. */
  readonly proposalNotes: ProposalNotes;
  /** Review comments here on pulls proposed from elsewhere, sent to their proposers. */
  readonly reviewNotes: ReviewNotes;
  /** Runs one message of the queue (an offer that cannot be answered now is tried again). */
  run(message: PullMessage): Promise<void>;
};

/**
 * Builds the parts of federated pull requests: the proposer's side (proposals, their updates,
 * the notes their upstreams send) and the upstream's (offers, their updates, the notes sent
 * back). Kept apart from the rest of federation, which they only use.
 */
export function federatedPulls(deps: FederatedPullsDeps): FederatedPulls {
  const { actors, remote, documents, repos, kv, queue, reach } = deps;
  const proposals = new OutgoingPullsService({
    actors,
    remote,
    documents,
    repos,
    kv,
    queue,
    reach,
  });
  const offers = new IncomingPullsService({
    actors,
    remote,
    documents,
    repos,
    pulls: deps.remotePulls,
    queue,
    // Offers pass the blocks and the repository's visibility, asked afresh for each one.
    gate: deps.gate,
    reach,
  });
  const proposalUpdates = new ProposalUpdates({ actors, repos, proposals, kv, queue });
  const offerUpdates = new IncomingUpdatesService({
    actors,
    documents,
    repos,
    pulls: deps.remotePulls,
    gate: deps.gate,
    reach,
  });
  return {
    proposals,
    proposalUpdates,
    offers,
    offerUpdates,
    proposalNotes: new ProposalNotes({ kv, repos }),
    reviewNotes: new ReviewNotes({ actors, offers, sent: deps.sentNotes }),
    run(message) {
      if (message.kind === 'offer') return offers.run(message);
      if (message.kind === 'proposal-update') return proposalUpdates.run(message);
      return offerUpdates.run(message);
    },
  };
}
