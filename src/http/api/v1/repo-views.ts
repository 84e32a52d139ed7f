import type { App } from '../../../app.ts';
import type { Repository, VisibleRepo } from '../../../domain/repos/repo.types.ts';
import type { User } from '../../../domain/users/user.types.ts';
import type { ConvertContext } from '../../convert/context.ts';
import { type RepoFacts, toApiRepository } from '../../convert/repo.ts';
import type { ApiRepository } from './schemas/repo.ts';

/**
 * Loads what a Repository object shows (live default branch, emptiness, the parent the caller
 * may see) and hands it to the pure converter. File reads only, no git process per repository,
 * so lists stay cheap.
 */
export class RepoViews {
  readonly #app: App;

  constructor(app: App) {
    this.#app = app;
  }

  async facts(repo: Repository, access: RepoFacts['access']): Promise<RepoFacts> {
    const { defaultBranch, empty } = await this.#app.services.repos.headFacts(repo);
    return { repo, access, defaultBranch, empty };
  }

  async one(
    viewer: User | undefined,
    visible: VisibleRepo,
    context: ConvertContext,
  ): Promise<ApiRepository> {
    const facts = await this.facts(visible.repo, visible.access.level);
    const parent = await this.#parentFacts(viewer, visible.repo);
    return toApiRepository(facts, context, parent);
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
    return Promise.all(
      visible.map(async ({ repo, access }) => {
        const parent = repo.parentId ? parentAccess.get(repo.parentId) : undefined;
        const [facts, parentFacts] = await Promise.all([
          this.facts(repo, access.level),
          parent ? this.facts(parent.repo, parent.access.level) : undefined,
        ]);
        return toApiRepository(facts, context, parentFacts);
      }),
    );
  }

  async #parentFacts(viewer: User | undefined, repo: Repository): Promise<RepoFacts | undefined> {
    if (!repo.parentId) return undefined;
    const parent = await this.#app.services.repos.findById(repo.parentId);
    if (!parent) return undefined;
    const level = await this.#app.services.repos.accessOf(viewer, parent);
    return level === 'none' ? undefined : this.facts(parent, level);
  }
}
