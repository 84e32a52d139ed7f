import type { VisibleRepo } from '../../../domain/repos/repo.types.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { BoundedMap } from '../../../lib/bounded-map.ts';
import { fingerprint } from '../../../lib/fingerprint.ts';
import type { ConvertContext } from '../../../present/context.ts';
import { toApiRepository } from '../../../present/repo.ts';
import type { RepoViews, ShownRepo } from '../../../present/repo-views.ts';
import type { ApiRepository } from '../../../present/schemas/repo.ts';

/** Answers kept (one per repository, access level and base URL); beyond this the oldest go. */
const REMEMBERED_ANSWERS = 2_000;

/** A Repository object as last written, and a fingerprint of everything it was made from. */
type Written = { readonly made: string; readonly text: string };

/** Writes one Repository object as REST's serializer for that schema does. */
export type SerializeRepository = (repository: ApiRepository) => string;

/**
 * REST's serialized Repository answers, kept by what they are made from. The converter is pure,
 * so an answer whose inputs (the repository row and its owner, the caller's access, the base
 * URL, the git facts read again for every answer, remote stars, the parent's facts) fingerprint
 * the same as last time would serialize to the same text. Keying by content, not by the lookup
 * object, lets a list, whose rows are read anew each time, reuse the texts the single GET wrote
 * and the other way round; a push, a rename or a visibility change alters an input and so the
 * fingerprint. The text is REST's own (its route serializer), so the cache stays at this edge.
 */
export class RepoAnswers {
  readonly #views: RepoViews;
  readonly #written = new BoundedMap<string, Written>(REMEMBERED_ANSWERS);

  constructor(views: RepoViews) {
    this.#views = views;
  }

  /** One Repository object, serialized by `serialize`. */
  async serialized(
    viewer: User | undefined,
    visible: VisibleRepo,
    context: ConvertContext,
    serialize: SerializeRepository,
  ): Promise<string> {
    return this.#text(await this.#views.shown(viewer, visible), context, serialize);
  }

  /**
   * A list of Repository objects as the JSON array the list's schema would write: each item is
   * exactly the text `serialize` writes for it alone, so the items are joined, not rewritten.
   */
  async serializedList(
    viewer: User | undefined,
    visible: readonly VisibleRepo[],
    context: ConvertContext,
    serialize: SerializeRepository,
  ): Promise<string> {
    const shown = await this.#views.shownMany(viewer, visible);
    return `[${shown.map((one) => this.#text(one, context, serialize)).join(',')}]`;
  }

  #text(shown: ShownRepo, context: ConvertContext, serialize: SerializeRepository): string {
    const { facts, parentFacts } = shown;
    const key = `${facts.access}\n${context.baseUrl ?? ''}\n${facts.repo.id}`;
    const made = fingerprint([context.baseUrl, facts, parentFacts ?? null]);
    const known = this.#written.get(key);
    if (known?.made === made) return known.text;
    const text = serialize(toApiRepository(facts, context, parentFacts));
    this.#written.set(key, { made, text });
    return text;
  }
}
