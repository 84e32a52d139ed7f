import type { ChangeClock } from '../../db/change-clock.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { withDigitGroups } from '../../lib/digit-groups.ts';
import { StampedMemo } from '../../lib/stamped-memo.ts';
import { isDomainError, NotFound } from '../errors.ts';
import { visibleToAnyone } from '../repos/repo.policy.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { UserService } from '../users/user.service.ts';
import type { Account } from '../users/user.types.ts';
import type { ActorKeys } from './actor-keys.ts';
import type { ActorUrls, LocalActorRef } from './actor-urls.ts';
import {
  type ActorBase,
  instanceDocument,
  personDocument,
  repositoryDocument,
  subjectOf,
} from './vocabulary.ts';

const REMEMBERED = 2000;

/** A local actor that exists for federation: the instance, an account, or a public repository. */
export type LocalActor =
  | { readonly kind: 'instance'; readonly key: 'instance'; readonly id: string }
  | { readonly kind: 'user'; readonly key: string; readonly id: string; readonly account: Account }
  | { readonly kind: 'repo'; readonly key: string; readonly id: string; readonly repo: Repository };

/**
 * Finds local actors and writes their documents. Federation sees what an anonymous visitor
 * sees: a private repository, and a private organisation with all its repositories, do not
 * exist here (NotFound, exactly like a missing one), so they have no actor, no inbox, no
 * followers and are never counted or delivered.
 */
export class LocalActors {
  readonly #users: UserService;
  readonly #repos: RepoService;
  readonly #keys: ActorKeys;
  readonly #changes: ChangeClock | undefined;
  readonly #remoteUpstream: (repo: Repository) => Promise<string | undefined>;
  /**
   * Lookups and documents, kept while the database's change clock stands still (as
   * RepoService keeps its lookups; see docs/architecture.md): discovery is what other servers
   * ask for most, and an unchanged actor needs no query.
   */
  readonly #lookups = new StampedMemo<string, LocalActor>(REMEMBERED);
  readonly #documents = new StampedMemo<string, object>(REMEMBERED);
  readonly urls: ActorUrls;

  constructor(deps: {
    users: UserService;
    repos: RepoService;
    keys: ActorKeys;
    urls: ActorUrls;
    changes: ChangeClock | undefined;
    caches?: CacheRegistry | undefined;
    /** The remote repository a local one was forked from (RemoteForksService), if any. */
    remoteUpstream?: (repo: Repository) => Promise<string | undefined>;
  }) {
    this.#remoteUpstream = deps.remoteUpstream ?? (async () => undefined);
    this.#users = deps.users;
    this.#repos = deps.repos;
    this.#keys = deps.keys;
    this.urls = deps.urls;
    this.#changes = deps.changes;
    const freshness = 'change-stamp';
    const bound = `${withDigitGroups(REMEMBERED)} entries`;
    deps.caches?.add(
      { name: 'federation_actors', key: 'actor route', freshness, bound },
      this.#lookups,
    );
    deps.caches?.add(
      { name: 'federation_actor_documents', key: 'actor', freshness, bound },
      this.#documents,
    );
  }

  /** The actor an id or route names; NotFound when there is none or it is private. */
  get(ref: LocalActorRef): Promise<LocalActor> {
    const key =
      ref.kind === 'repo'
        ? `r/${ref.owner}/${ref.name}`
        : ref.kind === 'user'
          ? `u/${ref.handle}`
          : 'i';
    return this.#lookups.read(key, this.#changes?.stamp(), () => this.#find(ref));
  }

  async #find(ref: LocalActorRef): Promise<LocalActor> {
    if (ref.kind === 'instance')
      return { kind: 'instance', key: 'instance', id: this.urls.instance() };
    if (ref.kind === 'user') {
      const account = await this.#users.findAccount(ref.handle);
      // A private organisation exists for its members only, never for another server.
      if (!account || account.private) throw new NotFound(`no account ${ref.handle}`);
      return this.ofAccount(account);
    }
    const { repo } = await this.#repos.get(undefined, ref.owner, ref.name);
    return this.ofRepo(repo);
  }

  ofAccount(account: Account): LocalActor {
    return { kind: 'user', key: `user:${account.id}`, id: this.urls.user(account.handle), account };
  }

  ofRepo(repo: Repository): LocalActor {
    return {
      kind: 'repo',
      key: `repo:${repo.id}`,
      id: this.urls.repo(repo.owner.handle, repo.name),
      repo,
    };
  }

  /** The actor by its storage key (`user:<id>`, `repo:<id>`), if it still exists publicly. */
  async findByKey(key: string): Promise<LocalActor | undefined> {
    if (key === 'instance') return this.get({ kind: 'instance' });
    const [kind, id] = key.split(':');
    if (!id) return undefined;
    if (kind === 'user') {
      const account = await this.#users.findById(id);
      return account && !account.private ? this.ofAccount(account) : undefined;
    }
    const repo = kind === 'repo' ? await this.#repos.findById(id) : undefined;
    return repo && visibleToAnyone(repo) ? this.ofRepo(repo) : undefined;
  }

  /**
   * Whether an activity of the actor stored under `actorKey` may be served. Invariant, held
   * here and in `get` (every actor, collection and activity route asks one of the two): the
   * fediverse is served only what an anonymous web visitor may see now. So the activity's actor
   * must be visible, and so must the repository it is about (`subjectOf`): a note announcing a
   * repository since made private is not served, even by its still public owner.
   */
  async servable(actorKey: string, activity: unknown): Promise<boolean> {
    if (!(await this.findByKey(actorKey))) return false;
    const subject = subjectOf(activity);
    const ref = subject === undefined ? undefined : this.urls.parse(subject);
    if (ref === undefined) return true;
    return this.get(ref).then(
      () => true,
      (error: unknown) => {
        if (isDomainError(error)) return false;
        throw error;
      },
    );
  }

  /** Inbox, outbox and followers of an actor. */
  endpoints(actor: LocalActor): { inbox: string; outbox: string; followers: string } {
    const urls = this.urls;
    if (actor.kind === 'instance') {
      const base = `${urls.base}/federation/actor`;
      return {
        inbox: urls.sharedInbox(),
        outbox: `${base}/outbox`,
        followers: `${base}/followers`,
      };
    }
    const at =
      actor.kind === 'user'
        ? (endpoint: 'inbox' | 'outbox' | 'followers') =>
            urls.userEndpoint(actor.account.handle, endpoint)
        : (endpoint: 'inbox' | 'outbox' | 'followers') =>
            urls.repoEndpoint(actor.repo.owner.handle, actor.repo.name, endpoint);
    return { inbox: at('inbox'), outbox: at('outbox'), followers: at('followers') };
  }

  /** The actor's JSON-LD document, with its public keys (made on first use). */
  document(actor: LocalActor): Promise<object> {
    return this.#documents.read(actor.key, this.#changes?.stamp(), () => this.#document(actor));
  }

  async #document(actor: LocalActor): Promise<object> {
    const base: ActorBase = {
      id: actor.id,
      ...this.endpoints(actor),
      sharedInbox: this.urls.sharedInbox(),
      keys: await this.#keys.publicKeys(actor.key),
    };
    if (actor.kind === 'instance') return instanceDocument(base, this.urls.host);
    if (actor.kind === 'user') return personDocument(base, actor.account);
    const { repo } = actor;
    const parent = await this.#repos.visibleParent(undefined, repo);
    return repositoryDocument(base, {
      name: repo.name,
      description: repo.description,
      ownerId: this.urls.user(repo.owner.handle),
      forks: this.urls.repoEndpoint(repo.owner.handle, repo.name, 'forks'),
      cloneUri: `${this.urls.base}/${encodeURIComponent(repo.owner.handle)}/${encodeURIComponent(repo.name)}.git`,
      forkedFrom: parent
        ? this.urls.repo(parent.repo.owner.handle, parent.repo.name)
        : ((await this.#remoteUpstream(repo)) ?? null),
    });
  }
}
