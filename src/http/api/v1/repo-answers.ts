import type { VisibleRepo } from '../../../domain/repos/repo.types.ts';
import type { User } from '../../../domain/users/user.types.ts';
import type { ConvertContext } from '../../../present/context.ts';
import type { RepoFacts } from '../../../present/repo.ts';
import { toApiRepository } from '../../../present/repo.ts';
import type { RepoViews } from '../../../present/repo-views.ts';
import type { ApiRepository } from '../../../present/schemas/repo.ts';

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
 * REST's serialized Repository answers, kept by the lookup they came from. The domain hands back
 * the same lookup object until the database may have changed, so one that is still here with the
 * same base URL and the same git facts (read again every time) would serialize to the same text.
 * The text is REST's own (its route serializer), so the cache stays at this edge.
 */
export class RepoAnswers {
  readonly #views: RepoViews;
  readonly #written = new WeakMap<VisibleRepo, Written>();

  constructor(views: RepoViews) {
    this.#views = views;
  }

  /**
   * The Repository object, serialized by `serialize` (the route's own serializer), reusing the
   * text written for the same lookup when nothing it shows has changed.
   */
  async serialized(
    viewer: User | undefined,
    visible: VisibleRepo,
    context: ConvertContext,
    serialize: (repository: ApiRepository) => string,
  ): Promise<string> {
    const { facts, parent, parentFacts } = await this.#views.shown(viewer, visible);
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
}
