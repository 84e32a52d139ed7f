import type { App } from '../../../app.ts';
import type { Repository, VisibleRepo } from '../../../domain/repos/repo.types.ts';
import type { User } from '../../../domain/users/user.types.ts';
import type { ConvertContext } from '../../convert/context.ts';
import { type RepoFacts, toApiRepository } from '../../convert/repo.ts';
import type { ApiRepository } from './schemas/repo.ts';

/** A Repository object as last written for one lookup, and what it was made from. */
type Written = {
  readonly baseUrl: string | null;
  readonly facts: RepoFacts;
  readonly parent: VisibleRepo | undefined;
  readonly parentFacts: RepoFacts | undefined;
  readonly text: string;
};

const sameGitFacts = (a: RepoFacts | undefined, b: RepoFacts | undefined) =>
  a === b || (a?.defaultBranch === b?.defaultBranch && a?.empty === b?.empty);

/**
 * Loads what a Repository object shows (live default branch, emptiness, the parent the caller
 * may see) and hands it to the pure converter. File reads only, no git process per repository,
 * so lists stay cheap.
 */
export class RepoViews {
  readonly #app: App;
  /**
   * Serialized answers by the lookup they came from. The domain hands back the same lookup
   * object until the database may have changed, so one that is still here with the same base
   * URL and the same git facts (read again every time) would serialize to the same text.
   */
  readonly #written = new WeakMap<VisibleRepo, Written>();

  constructor(app: App) {
    this.#app = app;
  }

  async facts(repo: Repository, access: RepoFacts['access'], stars?: number): Promise<RepoFacts> {
    const [{ defaultBranch, empty }, starCount] = await Promise.all([
      this.#app.services.repos.headFacts(repo),
      stars ?? this.#stars(repo),
    ]);
    return { repo, access, defaultBranch, empty, stars: starCount };
  }

  /** Remote stars (federation); none when federation is off or the repository is private. */
  async #stars(repo: Repository): Promise<number> {
    const federation = this.#app.services.federation;
    return federation && !repo.private ? federation.stars.count(repo.id) : 0;
  }

  async one(
    viewer: User | undefined,
    visible: VisibleRepo,
    context: ConvertContext,
  ): Promise<ApiRepository> {
    const { facts, parentFacts } = await this.#shown(viewer, visible);
    return toApiRepository(facts, context, parentFacts);
  }

  /**
   * `one`, serialized by `serialize` (the route's own serializer), reusing the text written for
   * the same lookup when nothing it shows has changed: the live git facts are read either way.
   */
  async serialized(
    viewer: User | undefined,
    visible: VisibleRepo,
    context: ConvertContext,
    serialize: (repository: ApiRepository) => string,
  ): Promise<string> {
    const { facts, parent, parentFacts } = await this.#shown(viewer, visible);
    const known = this.#written.get(visible);
    if (
      known &&
      known.facts.stars === facts.stars &&
      known.baseUrl === context.baseUrl &&
      known.parent === parent &&
      sameGitFacts(known.facts, facts) &&
      sameGitFacts(known.parentFacts, parentFacts)
    ) {
      return known.text;
    }
    const text = serialize(toApiRepository(facts, context, parentFacts));
    this.#written.set(visible, { baseUrl: context.baseUrl, facts, parent, parentFacts, text });
    return text;
  }

  async many(
    viewer: User | undefined,
    visible: readonly VisibleRepo[],
    context: ConvertContext,
  ): Promise<ApiRepository[]> {
    const parentIds = visible.flatMap(({ repo }) => (repo.parentId ? [repo.parentId] : []));
    const parents = await this.#app.services.repos.findManyByIds(parentIds);
    const parentAccess = new Map(
      (await this.#app.services.repos.accessOfMany(viewer, [...parents.values()])).map((entry) => [
        entry.repo.id,
        entry,
      ]),
    );
    const stars = await this.#app.services.federation?.stars.countMany(
      visible.filter(({ repo }) => !repo.private).map(({ repo }) => repo.id),
    );
    return Promise.all(
      visible.map(async ({ repo, access }) => {
        const parent = repo.parentId ? parentAccess.get(repo.parentId) : undefined;
        const [facts, parentFacts] = await Promise.all([
          this.facts(repo, access.level, stars?.get(repo.id) ?? 0),
          parent ? this.facts(parent.repo, parent.access.level) : undefined,
        ]);
        return toApiRepository(facts, context, parentFacts);
      }),
    );
  }

  /** What one Repository object shows: its facts, and its parent's when the viewer may see it. */
  async #shown(viewer: User | undefined, visible: VisibleRepo) {
    const facts = await this.facts(visible.repo, visible.access.level);
    const parent = await this.#app.services.repos.visibleParent(viewer, visible.repo);
    const parentFacts = parent && (await this.facts(parent.repo, parent.access.level));
    return { facts, parent, parentFacts };
  }
}
