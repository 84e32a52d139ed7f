import { NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { User } from '../users/user.types.ts';
import type { BlocksStore } from './blocks.store.ts';
import { type Block, type BlockKind, blockOf, normaliseBlockTarget } from './blocks.ts';
import type { HostPolicy } from './host-policy.ts';
import type { InstancesService } from './instances.service.ts';

/** Why a remote actor is refused: its server is not federated with, or a block holds. */
export type Refusal = { readonly reason: string; readonly block?: Block };

/**
 * Blocks of remote actors and servers. A site administrator's block holds everywhere: a host
 * block is the run-time host block of `InstancesService` (so deliveries stop too), an actor
 * block is kept here. A repository administrator's block (an actor, or a server) holds for that
 * repository only: its inbox refuses the blocked, and nobody blocked may propose to it.
 * Who may block is the edge's question for the site (administrators only) and asked here for a
 * repository (its administrators).
 */
export class BlocksService {
  readonly #store: BlocksStore;
  readonly #hosts: Pick<HostPolicy, 'permitsUrl'>;
  readonly #instances: Pick<InstancesService, 'block' | 'unblock' | 'blockedHosts'>;
  readonly #repos: Pick<RepoService, 'require'>;

  constructor(deps: {
    store: BlocksStore;
    hosts: Pick<HostPolicy, 'permitsUrl'>;
    instances: Pick<InstancesService, 'block' | 'unblock' | 'blockedHosts'>;
    repos: Pick<RepoService, 'require'>;
  }) {
    this.#store = deps.store;
    this.#hosts = deps.hosts;
    this.#instances = deps.instances;
    this.#repos = deps.repos;
  }

  /** The site's blocks: the actors blocked here, and the servers blocked at run time. */
  async site(): Promise<{ actors: Block[]; hosts: string[] }> {
    const actors = (await this.#store.site()).filter((block) => block.kind === 'actor');
    return { actors, hosts: [...this.#instances.blockedHosts()].sort() };
  }

  /** Blocks an actor or a server everywhere (the caller is a site administrator); the target. */
  async blockSite(kind: BlockKind, typed: string): Promise<string> {
    const target = normaliseBlockTarget(kind, typed);
    if (kind === 'host') await this.#instances.block(target);
    else await this.#store.add(undefined, 'actor', target);
    return target;
  }

  /** Takes a site block back; NotFound when there was none of an actor. */
  async unblockSite(kind: BlockKind, typed: string): Promise<string> {
    const target = normaliseBlockTarget(kind, typed);
    if (kind === 'host') await this.#instances.unblock(target);
    else if (!(await this.#store.remove(undefined, 'actor', target))) {
      throw new NotFound(`${target} is not blocked`);
    }
    return target;
  }

  /** A repository's own blocks; its administrators only (404 to anyone else who may see it). */
  async ofRepo(user: User, owner: string, name: string): Promise<Block[]> {
    const { repo } = await this.#repos.require(user, owner, name, 'admin');
    return this.#store.ofRepo(repo.id);
  }

  /** Blocks an actor or a server from one repository; its administrators only. */
  async blockForRepo(
    user: User,
    owner: string,
    name: string,
    block: { kind: BlockKind; target: string },
  ): Promise<string> {
    const { repo } = await this.#repos.require(user, owner, name, 'admin');
    const target = normaliseBlockTarget(block.kind, block.target);
    await this.#store.add(repo.id, block.kind, target);
    return target;
  }

  /** Takes a repository's block back; NotFound when there was none. */
  async unblockForRepo(
    user: User,
    owner: string,
    name: string,
    block: { kind: BlockKind; target: string },
  ): Promise<void> {
    const { repo } = await this.#repos.require(user, owner, name, 'admin');
    const target = normaliseBlockTarget(block.kind, block.target);
    if (!(await this.#store.remove(repo.id, block.kind, target))) {
      throw new NotFound(`${target} is not blocked here`);
    }
  }

  /**
   * Why `actorId` is refused, for `repoId` when given (the site's blocks and that repository's),
   * or undefined when nothing refuses it. Invariant: every inbound activity and every proposal
   * asks this first, so one block stops all of them.
   */
  async refusal(actorId: string, repoId?: string): Promise<Refusal | undefined> {
    if (!this.#hosts.permitsUrl(actorId)) {
      return { reason: 'this server does not federate with yours' };
    }
    const block = blockOf(await this.#store.holdingFor(repoId), actorId);
    if (!block) return undefined;
    return {
      reason:
        block.repoId === undefined
          ? 'you are blocked on this server'
          : 'you are blocked from this repository',
      block,
    };
  }
}
