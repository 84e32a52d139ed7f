import { randomUUID } from 'node:crypto';
import { deleteRef, findBranch } from '../../git/refs.ts';
import { fetchRemoteBranch, type RemoteFetchOptions } from '../../git/remote-fetch.ts';
import { isRecord } from '../../lib/narrow.ts';
import { Invalid, NotFound } from '../errors.ts';
import { visibleToAnyone } from '../repos/repo.policy.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { DeliveryMessage } from './delivery.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { LocalActors } from './local-actors.ts';
import type { KyselyMessageQueue } from './message-queue.ts';
import { proposedPatches } from './proposal-limits.ts';
import { INLINE_PATCH_BYTES, offerActivity, type PullOffer, splitPatches } from './pull-offers.ts';
import { idOf, type RemoteActors } from './remote-actors.ts';
import type { RemoteDocuments } from './remote-documents.ts';
import type { RemoteUpstream } from './remote-forks.service.ts';
import { sameHost } from './remote-repository.ts';

/** Where a proposed pull request stands, as its upstream last said. */
export type OutgoingPullState = 'pending' | 'open' | 'merged' | 'closed' | 'rejected';

/** A pull request proposed from a local fork to its upstream on another server. */
export type OutgoingPull = {
  readonly id: string;
  /** The id of the `Offer` that proposed it. */
  readonly offer: string;
  readonly upstream: string;
  readonly head: string;
  readonly base: string;
  readonly title: string;
  readonly state: OutgoingPullState;
  /** The pull request's page upstream, once accepted. */
  readonly url: string | null;
  /** Why the upstream refused it, when it did. */
  readonly reason: string | null;
  readonly createdAt: number;
  /** The proposer's actor key (`user:<id>`): later updates are signed by the proposer. */
  readonly proposer?: string;
};

export type OutgoingPullsDeps = {
  readonly actors: LocalActors;
  readonly remote: Pick<RemoteActors, 'get'>;
  readonly documents: Pick<RemoteDocuments, 'loader'>;
  readonly repos: Pick<RepoService, 'require' | 'handle'>;
  readonly kv: KyselyKvStore;
  readonly queue: KyselyMessageQueue;
  /** How git may reach a clone address (RemoteForksService checks and pins it). */
  readonly reach: (cloneUri: string) => Promise<RemoteFetchOptions>;
};

/** Where an offer's record is kept. */
export type OfferPlace = { readonly repoId: string; readonly id: string };

/** The record after an answer from its upstream. */
function nextState(
  record: OutgoingPull,
  answer: Record<string, unknown>,
  upstream: string,
): OutgoingPull {
  if (answer.type === 'Resolve') return { ...record, state: 'merged' };
  if (answer.type === 'Accept') {
    const result = idOf(answer.result);
    const url = result && sameHost(result, upstream) ? result : record.url;
    return { ...record, state: record.state === 'pending' ? 'open' : record.state, url };
  }
  const reason = typeof answer.summary === 'string' ? answer.summary.slice(0, 1000) : null;
  return { ...record, state: record.state === 'pending' ? 'rejected' : 'closed', reason };
}

/** A proposal to a remote upstream, as the REST API takes it. */
export type ProposalInput = { head: string; base: string; title: string; body?: string };

/**
 * Proposing pull requests from a fork of a repository of another server (ForgeFed `Offer` of a
 * `Ticket`). The commits the fork's branch has beyond the upstream's base branch are checked
 * against the limits the upstream applies to every pull, and sent as patches (when small
 * enough to ride inside the activity) beside the fork's branch, which the upstream fetches.
 * The offer goes through the delivery queue (retried while the upstream is away); its answer,
 * `Accept` or `Reject`, is recorded when it comes.
 */
export class OutgoingPullsService {
  readonly #deps: OutgoingPullsDeps;

  constructor(deps: OutgoingPullsDeps) {
    this.#deps = deps;
  }

  /** Proposes `input.head` of the fork `owner/name` into the upstream's `input.base`. */
  async propose(
    user: User,
    owner: string,
    name: string,
    input: ProposalInput,
  ): Promise<OutgoingPull> {
    const { repos, kv, actors } = this.#deps;
    const { repo } = await repos.require(user, owner, name, 'write');
    const upstream = await kv.get<RemoteUpstream>(['remote-fork', repo.id]);
    if (!upstream) throw new NotFound('this repository is not a fork of a repository elsewhere');
    if (!visibleToAnyone(repo)) {
      throw new Invalid('only a public fork can propose: the upstream fetches the branch from it');
    }
    const title = input.title.trim();
    if (title === '' || title.length > 255) throw new Invalid('title must be 1 to 255 characters');
    const handle = repos.handle(repo);
    const headSha = await findBranch(handle, input.head);
    if (!headSha) throw new Invalid(`head branch does not exist [name: ${input.head}]`);
    const patches = await this.patchesOf(handle, upstream, input.base, headSha);
    const person = actors.ofAccount(user);
    const fork = actors.ofRepo(repo);
    const offer: PullOffer = {
      id: actors.urls.activity(randomUUID()),
      actor: person.id,
      title,
      body: input.body ?? '',
      origin: { repo: fork.id, branch: input.head },
      target: { repo: upstream.actor, branch: input.base },
      patches:
        Buffer.byteLength(patches, 'utf8') <= INLINE_PATCH_BYTES ? splitPatches(patches) : [],
    };
    const record: OutgoingPull = {
      id: randomUUID(),
      offer: offer.id,
      upstream: upstream.actor,
      head: input.head,
      base: input.base,
      title,
      state: 'pending',
      url: null,
      reason: null,
      createdAt: Date.now(),
      proposer: person.key,
    };
    await kv.setFor(['outgoing-pull', repo.id, record.id], record, null);
    await kv.setFor(['offer', offer.id], { repoId: repo.id, id: record.id }, null);
    const message: DeliveryMessage = {
      kind: 'deliver',
      signer: person.key,
      signerId: person.id,
      inbox: await this.patchInbox(upstream.actor),
      activity: offerActivity(offer),
    };
    await this.#deps.queue.enqueue(message);
    return record;
  }

  /** The pull requests proposed from the fork `owner/name`, oldest first. */
  async list(viewer: User | undefined, owner: string, name: string): Promise<OutgoingPull[]> {
    const { repo } = await this.#deps.repos.require(viewer, owner, name, 'read');
    return this.proposalsOf(repo);
  }

  /** The pull requests proposed from `repo` (whose reader the caller has checked), oldest first. */
  async proposalsOf(repo: Pick<Repository, 'id'>): Promise<OutgoingPull[]> {
    const list: OutgoingPull[] = [];
    for await (const entry of this.#deps.kv.list(['outgoing-pull', repo.id])) {
      list.push(entry.value as OutgoingPull);
    }
    return list.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id, 'en'));
  }

  /**
   * An answer about one of our offers, recorded when it comes from the upstream the offer went
   * to (anyone else's changes nothing): `Accept` opened it (`result`, its page upstream, is kept
   * when on the upstream's host), `Reject` refused it — or, once open, closed it unmerged — and
   * `Resolve` of its page says it was merged. Returns whether it was about one of our offers.
   */
  async answered(sender: string, answer: Record<string, unknown>): Promise<boolean> {
    const about = idOf(answer.object);
    const where = about
      ? ((await this.#deps.kv.get<OfferPlace>(['offer', about])) ??
        (await this.#deps.kv.get<OfferPlace>(['offer-url', about])))
      : undefined;
    if (!where) return false;
    const key = ['outgoing-pull', where.repoId, where.id] as const;
    const record = await this.#deps.kv.get<OutgoingPull>(key);
    if (!record || record.upstream !== sender) return true;
    const next = nextState(record, answer, sender);
    await this.#deps.kv.setFor(key, next, null);
    if (next.url && next.url !== record.url) {
      await this.#deps.kv.setFor(['offer-url', next.url], where, null);
    }
    return true;
  }

  /** The inbox of the actor the upstream names as `sendPatchesTo` (on its own server). */
  async patchInbox(upstream: string): Promise<string> {
    const { document } = await this.#deps.documents.loader(upstream);
    const named = isRecord(document) ? idOf(document.sendPatchesTo) : undefined;
    const to = named && sameHost(named, upstream) ? named : upstream;
    return (await this.#deps.remote.get(to)).inbox;
  }

  /**
   * The patches of the commits `headSha` has beyond the upstream's `base`, checked against the
   * limits the upstream applies; Invalid with the reason when there is nothing to propose or
   * too much.
   */
  async patchesOf(
    handle: ReturnType<RepoService['handle']>,
    upstream: RemoteUpstream,
    base: string,
    headSha: string,
  ): Promise<string> {
    const scratch = `refs/kiln-upstream/offer-${randomUUID()}`;
    const reach = await this.#deps.reach(upstream.cloneUri);
    const baseSha = await fetchRemoteBranch(handle, upstream.cloneUri, base, scratch, reach).catch(
      (error: unknown) => {
        throw new Invalid(`the upstream branch ${base} could not be fetched`, { cause: error });
      },
    );
    try {
      const checked = await proposedPatches(handle, baseSha, headSha);
      if ('problem' in checked) throw new Invalid(checked.problem);
      return checked.patches;
    } finally {
      await deleteRef(handle, scratch, baseSha).catch(() => {});
    }
  }
}
