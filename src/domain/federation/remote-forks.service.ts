import { randomUUID } from 'node:crypto';
import {
  fetchAllFromRemote,
  type RemoteFetchOptions,
  remoteDefaultBranch,
} from '../../git/remote-fetch.ts';
import { Invalid } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository, VisibleRepo } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { DeliveryMessage } from './delivery.ts';
import { ACTOR_CONTEXT } from './forgefed-context.ts';
import { copyFailure, reachClone } from './fork-reach.ts';
import { type ForkSyncDeps, type MergeUpstreamResult, mergeUpstream } from './fork-sync.ts';
import type { KyselyKvStore } from './kv.store.ts';
import type { LocalActor, LocalActors } from './local-actors.ts';
import type { KyselyMessageQueue } from './message-queue.ts';
import type { RemoteActors } from './remote-actors.ts';
import type { RemoteDocuments } from './remote-documents.ts';
import { forkOfOurs, readRemoteRepository } from './remote-repository.ts';
import { deleteActivity } from './vocabulary.ts';

/** The repository on another server a local repository was forked from. */
export type RemoteUpstream = {
  readonly actor: string;
  readonly cloneUri: string;
  /** The upstream's `name` when it was forked (records made before it was kept lack it). */
  readonly name?: string;
};

/** A repository on another server forked from a local one, as its server announced it. */
export type RemoteFork = { readonly actor: string; readonly owner: string; readonly at: number };

export type RemoteForksDeps = Omit<ForkSyncDeps, 'repos' | 'upstreamOf' | 'reach'> & {
  readonly actors: LocalActors;
  readonly remote: RemoteActors;
  readonly documents: RemoteDocuments;
  readonly repos: Pick<RepoService, 'create' | 'delete' | 'handle' | 'require'>;
  /** The most bytes a fork's first copy may take on disk; 0 for no limit. */
  readonly maxForkBytes: number;
  /** The actor id a URL or handle names (ActorResolver). */
  readonly resolve: (target: string) => Promise<string>;
  readonly kv: KyselyKvStore;
  readonly queue: KyselyMessageQueue;
  /** Plain `http://` clone addresses, for servers on one machine (tests only). */
  readonly allowHttp: boolean;
};

/**
 * Forks across servers (ForgeFed `forkedFrom` and `forks`). A local user forks a public
 * repository of another server: Kiln reads its actor, copies its branches and tags from its
 * `cloneUri` into a new public repository whose actor names the remote one as `forkedFrom`, and
 * tells the upstream with a `Create` of the fork. An upstream here believes such a `Create` only
 * after reading the fork's actor itself from the fork's server: one server cannot list forks in
 * another's name, and the fork must say it was forked from the repository it names.
 */
export class RemoteForksService {
  readonly #deps: RemoteForksDeps;

  constructor(deps: RemoteForksDeps) {
    this.#deps = deps;
  }

  /** Forks the remote repository `target` names into `user`'s account, as `name` if given. */
  async fork(user: User, target: string, name?: string): Promise<VisibleRepo> {
    const { repos, kv } = this.#deps;
    const upstream = await readRemoteRepository(
      this.#deps.documents,
      await this.#deps.resolve(target),
    );
    const reach = await this.#reach(upstream.cloneUri);
    const defaultBranch = await remoteDefaultBranch(upstream.cloneUri, reach).catch(
      (error: unknown) => {
        throw new Invalid(`${upstream.cloneUri} could not be read`, { cause: error });
      },
    );
    const visible = await repos.create(user, {
      name: name ?? upstream.name,
      description: upstream.summary,
      ...(defaultBranch ? { defaultBranch } : {}),
    });
    const { repo } = visible;
    try {
      await fetchAllFromRemote(repos.handle(repo), upstream.cloneUri, reach);
      const record: RemoteUpstream = {
        actor: upstream.id,
        cloneUri: upstream.cloneUri,
        name: upstream.name,
      };
      await kv.setFor(['remote-fork', repo.id], record, null);
    } catch (error) {
      // Nothing half-copied stays behind: the new repository goes with whatever it received.
      await repos.delete(user, repo.owner.handle, repo.name).catch(() => {});
      throw copyFailure(`${upstream.cloneUri} could not be fetched`, error);
    }
    await this.#announce(repo, upstream.id);
    return visible;
  }

  /** The remote repository `repo` was forked from, if it was forked from one. */
  upstreamOf(repo: Repository): Promise<RemoteUpstream | undefined> {
    return this.#deps.kv.get<RemoteUpstream>(['remote-fork', repo.id]);
  }

  /** The remote upstreams of those of `repos` forked from one, by repository id: one query. */
  async upstreamsOf(repos: readonly Repository[]): Promise<Map<string, RemoteUpstream>> {
    const ids = [...new Set(repos.map((repo) => repo.id))];
    const found = await this.#deps.kv.getMany<RemoteUpstream>(ids.map((id) => ['remote-fork', id]));
    const upstreams = new Map<string, RemoteUpstream>();
    ids.forEach((id, at) => {
      const upstream = found[at];
      if (upstream) upstreams.set(id, upstream);
    });
    return upstreams;
  }

  /** The forks other servers made of `repo`, oldest first. */
  async forksOf(repo: Repository): Promise<RemoteFork[]> {
    const list: RemoteFork[] = [];
    for await (const entry of this.#deps.kv.list(['forks', repo.id])) {
      list.push(entry.value as RemoteFork);
    }
    return list.sort((a, b) => a.at - b.at || a.actor.localeCompare(b.actor, 'en'));
  }

  /**
   * Brings `branch` of a remote fork up to the upstream's branch of that name, when that is a
   * fast-forward (`fork-sync.ts`); without `branch`, the fork's default branch.
   */
  mergeUpstream(
    user: User,
    owner: string,
    name: string,
    asked?: string,
  ): Promise<MergeUpstreamResult> {
    return mergeUpstream(
      {
        ...this.#deps,
        upstreamOf: (repo) => this.upstreamOf(repo),
        reach: (uri) => this.#reach(uri),
      },
      user,
      { owner, name, branch: asked },
    );
  }

  /**
   * A `Create` from another server: when its object is a repository forked from one of ours,
   * and the fork's own actor (read from its server) says so, the fork is listed.
   */
  async created(sender: string, activity: Record<string, unknown>): Promise<void> {
    const claim = await forkOfOurs(this.#deps, sender, activity);
    if (!claim) return;
    const { upstream, forkId } = claim;
    const known = await this.#deps.kv.get<RemoteFork>(['forks', upstream.repo.id, forkId]);
    if (known) return;
    const record: RemoteFork = { actor: forkId, owner: sender, at: Date.now() };
    await this.#deps.kv.setFor(['forks', upstream.repo.id, forkId], record, null);
    await this.#deps.kv.setFor(['forked-from', forkId], upstream.repo.id, null);
  }

  /** A fork elsewhere deleted itself (gone, or no longer public): it is listed no more. */
  async deleted(forkId: string): Promise<void> {
    const { kv } = this.#deps;
    const upstreamId = await kv.get<string>(['forked-from', forkId]);
    if (upstreamId === undefined) return;
    await kv.delete(['forks', upstreamId, forkId]);
    await kv.delete(['forked-from', forkId]);
  }

  /**
   * A repository stopped being public (made private, deleted, its owner made private). Its
   * forks elsewhere are forgotten, as its followers are: made public again it starts afresh.
   * When it is itself a fork of a remote repository, its upstream is told with the same
   * `Delete` of the fork its followers get, so the upstream stops listing it at once.
   */
  async withdrawn(repo: Repository): Promise<void> {
    const { actors, kv } = this.#deps;
    for (const fork of await this.forksOf(repo)) {
      await kv.delete(['forks', repo.id, fork.actor]);
      await kv.delete(['forked-from', fork.actor]);
    }
    const upstream = await this.upstreamOf(repo);
    if (!upstream) return;
    const fork = actors.ofRepo(repo);
    const activity = deleteActivity({
      id: actors.urls.activity(randomUUID()),
      actor: fork.id,
      followers: actors.endpoints(fork).followers,
      object: fork.id,
      formerType: 'Repository',
    });
    await this.#deliver(fork, upstream.actor, {
      ...activity,
      cc: [...activity.cc, upstream.actor],
    });
  }

  /** How git may reach a clone address (Invalid when it may not), for proposals too. */
  reachOf(cloneUri: string): Promise<RemoteFetchOptions> {
    return this.#reach(cloneUri);
  }

  /** How git may reach a clone address (checked, pinned, and capped at the fork size). */
  #reach(cloneUri: string): Promise<RemoteFetchOptions> {
    return reachClone(cloneUri, this.#deps.allowHttp, this.#deps.maxForkBytes);
  }

  /** Tells the upstream (ForgeFed: `Create` of the fork, addressed to the upstream). */
  async #announce(repo: Repository, upstreamId: string): Promise<void> {
    const { actors } = this.#deps;
    const owner = actors.ofAccount(repo.owner);
    const forkActor = actors.ofRepo(repo);
    const document = (await actors.document(forkActor)) as Record<string, unknown>;
    const activity = {
      '@context': ACTOR_CONTEXT,
      id: `${forkActor.id}#create/${randomUUID()}`,
      type: 'Create',
      actor: owner.id,
      to: [upstreamId],
      object: {
        id: forkActor.id,
        type: document.type,
        name: repo.name,
        attributedTo: owner.id,
        forkedFrom: upstreamId,
        cloneUri: document.cloneUri,
      },
    };
    await this.#deliver(owner, upstreamId, activity);
  }

  /** Queues `activity` from `signer` to the inbox of the remote actor `to`. */
  async #deliver(signer: LocalActor, to: string, activity: object): Promise<void> {
    const inbox = (await this.#deps.remote.get(to)).inbox;
    const message: DeliveryMessage = {
      kind: 'deliver',
      signer: signer.key,
      signerId: signer.id,
      inbox,
      activity,
    };
    await this.#deps.queue.enqueue(message);
  }
}
