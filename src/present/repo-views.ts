import type { RemoteUpstream } from '../domain/federation/remote-forks.service.ts';
import { visibleToAnyone } from '../domain/repos/repo.policy.ts';
import type { Repository, VisibleRepo } from '../domain/repos/repo.types.ts';
import type { DomainServices } from '../domain/services.ts';
import type { User } from '../domain/users/user.types.ts';
import type { ConvertContext } from './context.ts';
import { type RepoFacts, toApiRepository } from './repo.ts';
import type { ApiRepository } from './schemas/repo.ts';

/** What the repository loader reads: repositories, and remote stars when federation is on. */
export type RepoViewDeps = {
  readonly services: Pick<DomainServices, 'repos' | 'federation'>;
};

/** What one Repository object shows: its facts, and its parent's when the viewer may see it. */
export type ShownRepo = {
  readonly facts: RepoFacts;
  readonly parent: VisibleRepo | undefined;
  readonly parentFacts: RepoFacts | undefined;
};

/**
 * Loads what a Repository object shows (live default branch, emptiness, the parent the caller
 * may see) and hands it to the pure converter. File reads only, no git process per repository,
 * so lists stay cheap.
 */
export class RepoViews {
  readonly #services: RepoViewDeps['services'];

  constructor(deps: RepoViewDeps) {
    this.#services = deps.services;
  }

  /**
   * What one Repository object shows of `repo`. `known` holds what a list read for all its
   * repositories at once (remote stars, remote upstreams); what it lacks is read here.
   */
  async facts(
    repo: Repository,
    access: RepoFacts['access'],
    known: {
      readonly stars?: number;
      readonly upstreams?: ReadonlyMap<string, RemoteUpstream>;
    } = {},
  ): Promise<RepoFacts> {
    const [{ defaultBranch, empty }, starCount, remoteParent] = await Promise.all([
      this.#services.repos.headFacts(repo),
      known.stars ?? this.#stars(repo),
      known.upstreams
        ? known.upstreams.get(repo.id)
        : this.#services.federation?.forks.upstreamOf(repo),
    ]);
    return { repo, access, defaultBranch, empty, stars: starCount, remoteParent };
  }

  /** Remote stars (federation); none when federation is off or the repository is not public. */
  async #stars(repo: Repository): Promise<number> {
    const federation = this.#services.federation;
    return federation && visibleToAnyone(repo) ? federation.stars.count(repo.id) : 0;
  }

  async one(
    viewer: User | undefined,
    visible: VisibleRepo,
    context: ConvertContext,
  ): Promise<ApiRepository> {
    const { facts, parentFacts } = await this.shown(viewer, visible);
    return toApiRepository(facts, context, parentFacts);
  }

  async many(
    viewer: User | undefined,
    visible: readonly VisibleRepo[],
    context: ConvertContext,
  ): Promise<ApiRepository[]> {
    const shown = await this.shownMany(viewer, visible);
    return shown.map(({ facts, parentFacts }) => toApiRepository(facts, context, parentFacts));
  }

  /**
   * What each Repository object of a list shows, in the list's order: parents, their access and
   * remote stars and remote upstreams are read once for the whole list, not once per repository.
   */
  async shownMany(viewer: User | undefined, visible: readonly VisibleRepo[]): Promise<ShownRepo[]> {
    const parentIds = visible.flatMap(({ repo }) => (repo.parentId ? [repo.parentId] : []));
    const parents = await this.#services.repos.findManyByIds(parentIds);
    const parentAccess = new Map(
      (await this.#services.repos.accessOfMany(viewer, [...parents.values()])).map((entry) => [
        entry.repo.id,
        entry,
      ]),
    );
    const stars = await this.#services.federation?.stars.countMany(
      visible.filter(({ repo }) => visibleToAnyone(repo)).map(({ repo }) => repo.id),
    );
    const upstreams = await this.#services.federation?.forks.upstreamsOf([
      ...visible.map(({ repo }) => repo),
      ...parents.values(),
    ]);
    return Promise.all(
      visible.map(async ({ repo, access }) => {
        const parent = repo.parentId ? parentAccess.get(repo.parentId) : undefined;
        const [facts, parentFacts] = await Promise.all([
          this.facts(repo, access.level, { stars: stars?.get(repo.id) ?? 0, upstreams }),
          parent ? this.facts(parent.repo, parent.access.level, { upstreams }) : undefined,
        ]);
        return { facts, parent, parentFacts };
      }),
    );
  }

  /** What one Repository object shows: its facts, and its parent's when the viewer may see it. */
  async shown(viewer: User | undefined, visible: VisibleRepo): Promise<ShownRepo> {
    const facts = await this.facts(visible.repo, visible.access.level);
    const parent = await this.#services.repos.visibleParent(viewer, visible.repo);
    const parentFacts = parent && (await this.facts(parent.repo, parent.access.level));
    return { facts, parent, parentFacts };
  }
}
