import { randomUUID } from 'node:crypto';
import type { Push } from '../repos/push-events.ts';
import { visibleToAnyone } from '../repos/repo.policy.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { DeliveryMessage } from './delivery.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { LocalActors } from './local-actors.ts';
import type { KyselyMessageQueue } from './message-queue.ts';
import type { OutgoingPull, OutgoingPullsService } from './outgoing-pulls.service.ts';
import { INLINE_PATCH_BYTES, splitPatches, updateActivity } from './pull-offers.ts';
import type { RemoteUpstream } from './remote-forks.service.ts';

/** A push to a proposed branch, waiting for the worker to tell the upstream. */
export type ProposalUpdateMessage = {
  readonly kind: 'proposal-update';
  readonly repoId: string;
  readonly proposalId: string;
  readonly headSha: string;
};

const BRANCH_PREFIX = 'refs/heads/';

/** Proposals whose upstream still takes news of their branch. */
const LIVE: ReadonlySet<OutgoingPull['state']> = new Set(['pending', 'open']);

export type ProposalUpdatesDeps = {
  readonly actors: LocalActors;
  readonly repos: Pick<RepoService, 'findById' | 'handle'>;
  readonly proposals: Pick<OutgoingPullsService, 'proposalsOf' | 'patchesOf' | 'patchInbox'>;
  readonly kv: KyselyKvStore;
  readonly queue: KyselyMessageQueue;
};

/**
 * Pushes to a branch proposed to an upstream on another server update the proposal there: the
 * proposer sends `Update` of the ticket with the branches and the patches anew, and the upstream
 * fetches the branch again. The push only queues the work (nothing a push does waits for another
 * server); the worker computes the patches (left out when the upstream's base cannot be fetched
 * or they are too large to carry: the upstream fetches the branch anyway) and queues the
 * delivery, which is retried while the upstream is away. A fork made private tells nothing.
 */
export class ProposalUpdates {
  readonly #deps: ProposalUpdatesDeps;

  constructor(deps: ProposalUpdatesDeps) {
    this.#deps = deps;
  }

  /** Queues an update of each live proposal whose branch `push` moved. */
  async pushed(push: Push): Promise<void> {
    if (!visibleToAnyone(push.repo)) return;
    const moved = new Map<string, string>();
    for (const change of push.changes) {
      if (change.newSha && change.ref.startsWith(BRANCH_PREFIX)) {
        moved.set(change.ref.slice(BRANCH_PREFIX.length), change.newSha);
      }
    }
    if (moved.size === 0) return;
    for (const proposal of await this.#deps.proposals.proposalsOf(push.repo)) {
      const headSha = moved.get(proposal.head);
      if (headSha === undefined || !LIVE.has(proposal.state) || !proposal.proposer) continue;
      await this.#deps.queue.enqueue({
        kind: 'proposal-update',
        repoId: push.repo.id,
        proposalId: proposal.id,
        headSha,
      } satisfies ProposalUpdateMessage);
    }
  }

  /** Sends the `Update` a queued push asks for, signed by the proposer. */
  async run(message: ProposalUpdateMessage): Promise<void> {
    const { kv, repos, actors, proposals } = this.#deps;
    const repo = await repos.findById(message.repoId);
    const upstream = repo ? await kv.get<RemoteUpstream>(['remote-fork', repo.id]) : undefined;
    const record = await kv.get<OutgoingPull>([
      'outgoing-pull',
      message.repoId,
      message.proposalId,
    ]);
    if (!repo || !visibleToAnyone(repo) || !upstream || !record?.proposer) return;
    if (!LIVE.has(record.state)) return;
    const person = await actors.findByKey(record.proposer);
    if (!person) return;
    const handle = repos.handle(repo);
    const mbox = await proposals
      .patchesOf(handle, upstream, record.base, message.headSha)
      .catch(() => '');
    const update: DeliveryMessage = {
      kind: 'deliver',
      signer: person.key,
      signerId: person.id,
      inbox: await proposals.patchInbox(record.upstream),
      activity: updateActivity({
        id: actors.urls.activity(randomUUID()),
        actor: person.id,
        ticket: record.url ?? record.offer,
        origin: { repo: actors.ofRepo(repo).id, branch: record.head },
        target: { repo: record.upstream, branch: record.base },
        patches: Buffer.byteLength(mbox, 'utf8') <= INLINE_PATCH_BYTES ? splitPatches(mbox) : [],
      }),
    };
    await this.#deps.queue.enqueue(update);
  }
}
