import type { Config } from '../../config/config.ts';
import type { ChangeClock } from '../../db/change-clock.ts';
import type { Db } from '../../db/database.ts';
import type { Dialect } from '../../db/migration.ts';
import type { CatFilePool } from '../../git/cat-file-pool.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import type { RemotePullService } from '../pulls/remote-pulls.service.ts';
import type { Release } from '../releases/release.types.ts';
import type { ProtectedBranchService } from '../repos/protected-branch.service.ts';
import type { PushService } from '../repos/push.service.ts';
import type { Push } from '../repos/push-events.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { UserService } from '../users/user.service.ts';
import { ActorKeysStore } from './actor-keys.store.ts';
import { ActorKeys } from './actor-keys.ts';
import { ActorResolver } from './actor-resolver.ts';
import { ActorUrls } from './actor-urls.ts';
import { BlocksService } from './blocks.service.ts';
import { BlocksStore } from './blocks.store.ts';
import { type FederatedPulls, federatedPulls } from './federated-pulls.ts';
import { federationDb } from './federation.tables.ts';
import { type FederationNetwork, federationNetwork } from './federation-network.ts';
import { FollowersStore } from './followers.store.ts';
import { FollowingService } from './following.service.ts';
import { HostPolicy } from './host-policy.ts';
import { InboxService } from './inbox.service.ts';
import { InboxGuard } from './inbox-guard.ts';
import { InstancesService } from './instances.service.ts';
import { KyselyKvStore } from './kv.store.ts';
import { LocalActors } from './local-actors.ts';
import { KyselyMessageQueue } from './message-queue.ts';
import { federationBaseUrl } from './open-federation.ts';
import { OutboxStore } from './outbox.store.ts';
import { type ProposalGate, proposalGate } from './proposal-gate.ts';
import { Publisher } from './publisher.ts';
import { QueueStore } from './queue.store.ts';
import { QueueWorker } from './queue-worker.ts';
import { RemoteActors } from './remote-actors.ts';
import { RemoteForksService, type RemoteUpstream } from './remote-forks.service.ts';
import { RemoteStarsStore } from './remote-stars.store.ts';
import { SentNotesStore } from './sent-notes.store.ts';
import { Withdrawal } from './withdrawal.ts';

export type FederationDeps = {
  readonly config: Config;
  readonly db: Db;
  /** The database engine: PostgreSQL lets queue claims skip rows other replicas hold. */
  readonly dialect: Dialect;
  /** The database's change clock, so unchanged actors are answered from memory. */
  readonly changes: ChangeClock | undefined;
  readonly users: UserService;
  readonly repos: RepoService;
  /** Who may move which branch (a fork brought up to its upstream moves one). */
  readonly protectedBranches: Pick<ProtectedBranchService, 'mayPushTo'>;
  /** The use case a git push ends in (a fork brought up to its upstream ends in it too). */
  readonly pushHandling: Pick<PushService, 'afterPush'>;
  readonly catFiles: CatFilePool;
  readonly userAgent: string;
  /** Where failures of background work are reported (the server's log). */
  readonly report: (error: unknown) => void;
  /** Where the local actors' caches are declared (the composition root's registry). */
  readonly caches?: CacheRegistry;
  /** Opens pull requests proposed from other servers. */
  readonly remotePulls: Pick<
    RemotePullService,
    'open' | 'openedBy' | 'proposalOf' | 'numbered' | 'advance'
  >;
};

/**
 * Kiln as a citizen of the fediverse: its parts, built once in the composition root. Federation
 * is on only when enabled and when Kiln knows its own external URL (`service.base-url`: actor
 * ids must not depend on the Host a request happened to use) and has a secret key to seal the
 * actors' private keys with; `fromConfig` returns undefined otherwise, and every federation
 * route then answers 404.
 */
export class Federation {
  readonly urls: ActorUrls;
  readonly hosts: HostPolicy;
  readonly actors: LocalActors;
  readonly documents: FederationNetwork['documents'];
  readonly inbox: InboxService;
  /** Blocks of remote actors and servers (site-wide and per repository). */
  readonly blocks: BlocksService;
  /** What each verified inbox POST passes first: blocks, then the rate limits. */
  readonly inboxGuard: InboxGuard;
  /** Whether a remote actor may propose a pull request to a repository (blocks, visibility). */
  readonly proposalGate: ProposalGate;
  /** Other servers: the ones known, the ones blocked by an administrator. */
  readonly instances: InstancesService;
  /** Forks of repositories on other servers, and other servers' forks of ours. */
  readonly forks: RemoteForksService;
  /** Pull requests across servers: proposed from here, and proposed to here. */
  readonly pulls: FederatedPulls;
  /** Local users following and starring remote actors. */
  readonly following: FollowingService;
  readonly followers: FollowersStore;
  readonly stars: RemoteStarsStore;
  readonly outbox: OutboxStore;
  readonly queue: KyselyMessageQueue;
  readonly kv: KyselyKvStore;
  /** Whether actor and collection documents are served to signed GETs only. */
  readonly signedFetchRequired: boolean;
  /** Takes back what stops being public (`wiring/federation.ts` subscribes it). */
  readonly withdrawal: Withdrawal;
  readonly #publisher: Publisher;
  readonly #users: UserService;
  readonly #worker: QueueWorker;

  static fromConfig(deps: FederationDeps): Federation | undefined {
    const { federation, secretKey } = deps.config;
    const baseUrl = federationBaseUrl(deps.config);
    if (!federation.enabled || !baseUrl || !secretKey) return undefined;
    return new Federation(deps, baseUrl, secretKey);
  }

  private constructor(deps: FederationDeps, baseUrl: URL, secretKey: string) {
    const { config } = deps;
    const db = federationDb(deps.db);
    this.#users = deps.users;
    this.urls = new ActorUrls(baseUrl);
    this.signedFetchRequired = config.federation.requireSignedFetch;
    this.kv = new KyselyKvStore(db);
    this.followers = new FollowersStore(db);
    this.stars = new RemoteStarsStore(db);
    const queueStore = new QueueStore(db, deps.dialect);
    this.instances = new InstancesService({
      kv: this.kv,
      followers: this.followers,
      stars: this.stars,
      queue: queueStore,
    });
    this.hosts = new HostPolicy(
      config.federation.allowedHosts,
      config.federation.blockedHosts,
      () => this.instances.blockedHosts(),
    );
    this.queue = new KyselyMessageQueue(queueStore, { report: deps.report });
    this.blocks = new BlocksService({
      store: new BlocksStore(db),
      hosts: this.hosts,
      instances: this.instances,
      repos: deps.repos,
    });
    this.proposalGate = proposalGate({ blocks: this.blocks, repos: deps.repos });
    this.outbox = new OutboxStore(db);
    const keys = new ActorKeys(new ActorKeysStore(db), secretKey);
    const network = federationNetwork({
      config,
      baseUrl,
      keys,
      urls: this.urls,
      kv: this.kv,
      hosts: this.hosts,
      userAgent: deps.userAgent,
    });
    this.documents = network.documents;
    this.actors = new LocalActors({
      users: deps.users,
      repos: deps.repos,
      keys,
      urls: this.urls,
      changes: deps.changes,
      caches: deps.caches,
      remoteUpstream: async (repo) =>
        (await this.kv.get<RemoteUpstream>(['remote-fork', repo.id]))?.actor,
    });
    this.inboxGuard = new InboxGuard({
      blocks: this.blocks,
      actors: this.actors,
      perActorPerMinute: config.federation.inboxLimitPerActor,
      perHostPerMinute: config.federation.inboxLimitPerHost,
    });
    const remote = new RemoteActors(this.documents);
    this.following = new FollowingService({
      actors: this.actors,
      remote,
      resolver: new ActorResolver({
        documents: this.documents,
        hosts: this.hosts,
        allowHttp: network.allowHttp,
      }),
      kv: this.kv,
      queue: this.queue,
    });
    this.forks = new RemoteForksService({
      actors: this.actors,
      remote,
      documents: this.documents,
      repos: deps.repos,
      protectedBranches: deps.protectedBranches,
      pushHandling: deps.pushHandling,
      report: deps.report,
      maxForkBytes: config.federation.maxForkBytes,
      resolve: (target) => this.following.resolve(target),
      kv: this.kv,
      queue: this.queue,
      allowHttp: config.federation.allowPrivateAddresses,
    });
    this.pulls = federatedPulls({
      sentNotes: new SentNotesStore(db),
      actors: this.actors,
      remote,
      documents: this.documents,
      repos: deps.repos,
      kv: this.kv,
      queue: this.queue,
      remotePulls: deps.remotePulls,
      gate: this.proposalGate,
      reach: (cloneUri) => this.forks.reachOf(cloneUri),
    });
    this.inbox = new InboxService({
      notes: this.pulls.proposalNotes,
      proposals: this.pulls.proposals,
      forks: this.forks,
      actors: this.actors,
      remote,
      following: this.following,
      followers: this.followers,
      stars: this.stars,
      kv: this.kv,
      queue: this.queue,
      instances: this.instances,
    });
    this.#publisher = new Publisher({
      actors: this.actors,
      repos: deps.repos,
      catFiles: deps.catFiles,
      followers: this.followers,
      outbox: this.outbox,
      queue: this.queue,
    });
    this.#worker = new QueueWorker({
      queue: this.queue,
      delivery: network.delivery,
      instances: this.instances,
      publisher: this.#publisher,
      pulls: this.pulls,
      report: deps.report,
    });
    this.withdrawal = new Withdrawal({
      forks: this.forks,
      actors: this.actors,
      repos: deps.repos,
      followers: this.followers,
      outbox: this.outbox,
      queue: this.queue,
    });
  }

  /** Queues the announcement of a new release to the followers of its repository. */
  announceRelease(repo: Repository, release: Release): Promise<void> {
    return this.#publisher.announceRelease(repo, release);
  }

  /** Queues the announcement of a new repository to its owner's followers. */
  announceRepo(repo: Repository): Promise<void> {
    return this.#publisher.announceRepo(repo);
  }

  /** Queues the announcement of a push to the followers of its repository (if public). */
  announcePush(push: Push): Promise<void> {
    return this.#publisher.announcePush(push);
  }

  /** Starts the queue worker of this process (every replica runs one; each message runs once). */
  start(): void {
    this.#worker.start();
  }

  stop(): Promise<void> {
    return this.#worker.stop();
  }

  /** NodeInfo's usage figures: people, and activities published. */
  async usage(): Promise<{ users: number; localPosts: number }> {
    return { users: await this.#users.countPeople(), localPosts: await this.outbox.count() };
  }
}
