import type { Repository, VisibleRepo } from '../../../domain/repos/repo.types.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { BoundedMap } from '../../../lib/bounded-map.ts';
import type { CacheRegistry } from '../../../lib/cache-registry.ts';
import { withDigitGroups } from '../../../lib/digit-groups.ts';
import { fingerprint } from '../../../lib/fingerprint.ts';
import type { ConvertContext } from '../../../present/context.ts';
import { type RepoFacts, toApiRepository } from '../../../present/repo.ts';
import type { RepoViews, ShownRepo } from '../../../present/repo-views.ts';
import type { ApiRepository } from '../../../present/schemas/repo.ts';

/** Answers kept (one per repository, access level and base URL); beyond this the oldest go. */
const REMEMBERED_ANSWERS = 2_000;
/** Lists kept as sent (a list holds up to 50 answers of about 2 KB). */
const REMEMBERED_LISTS = 100;

/**
 * A Repository object as last written, and a fingerprint of what it was made from. Its UTF-8
 * bytes are made the first time a list joins it.
 */
type Written = {
  readonly made: Made;
  readonly text: string;
  bytes: Buffer | undefined;
  /** Names this answer among those written, for the lists joined from it. */
  readonly serial: number;
};

/**
 * What an answer was made from, in parts: the row's fingerprint is the string kept for its
 * object, so while the row is unchanged it compares as the very same string, at once.
 */
type Made = {
  readonly baseUrl: ConvertContext['baseUrl'];
  readonly row: string;
  readonly rest: string;
  readonly parent: string;
};

/**
 * The facts beside the row (access, default branch, emptiness, counts) as text. They are flat
 * strings, booleans and counts, so JSON says all of them, in a quarter of the time of the
 * generic fingerprint; what JSON would not tell apart (an absent count and an undefined one,
 * NaN and null) the converter does not either.
 */
const factsText = (rest: Omit<RepoFacts, 'repo'>) => JSON.stringify(rest);

const sameMade = (a: Made, b: Made) =>
  a.row === b.row && a.rest === b.rest && a.parent === b.parent && a.baseUrl === b.baseUrl;

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

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
 * A single answer goes out as text: Node writes a string body in one piece with the headers,
 * where a Buffer body makes it write the two as a vector (a quarter of the answer's CPU). A list
 * is joined from each item's UTF-8 bytes, kept beside the text once a list has used them, so a
 * list of a few dozen kilobytes is not encoded again for every answer.
 */
export class RepoAnswers {
  readonly #views: RepoViews;
  readonly #answers = new BoundedMap<string, Written>(REMEMBERED_ANSWERS);
  /**
   * Fingerprints of repository rows by object. Lookups and list pages hand the same frozen
   * objects to every request until the database changes (repo-access.service.ts), so a row is
   * walked once, not once per answer.
   */
  readonly #rows = new WeakMap<Repository, string>();
  /** Lists as sent, by the names of the answers joined in them (an answer is never rewritten). */
  readonly #lists = new BoundedMap<string, Buffer>(REMEMBERED_LISTS);
  #serials = 0;

  /** Declares its caches to `caches` (the process's registry, one set per server) when given. */
  constructor(views: RepoViews, caches?: Pick<CacheRegistry, 'addEach'>) {
    this.#views = views;
    const freshness = 'change-stamp';
    caches?.addEach(
      {
        name: 'api_repo_answers',
        key: 'fingerprint of the repository row, access and facts',
        freshness,
        bound: `${withDigitGroups(REMEMBERED_ANSWERS)} answers`,
      },
      this.#answers,
    );
    caches?.addEach(
      {
        name: 'api_repo_lists',
        key: 'the answers joined in a list',
        freshness,
        bound: `${withDigitGroups(REMEMBERED_LISTS)} lists`,
      },
      this.#lists,
    );
  }

  /** One Repository object, serialized by `serialize`. */
  async serialized(
    viewer: User | undefined,
    visible: VisibleRepo,
    context: ConvertContext,
    serialize: SerializeRepository,
  ): Promise<string> {
    return this.#written(await this.#views.shown(viewer, visible), context, serialize).text;
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
  ): Promise<Buffer> {
    const shown = await this.#views.shownMany(viewer, visible);
    const items = shown.map((one) => this.#written(one, context, serialize));
    // The same page asked again joins the same answers: its bytes are kept by their names.
    const key = items.map((written) => written.serial).join(',');
    const kept = this.#lists.get(key);
    if (kept) return kept;
    const parts: Buffer[] = [OPEN];
    items.forEach((written, i) => {
      if (i > 0) parts.push(COMMA);
      written.bytes ??= Buffer.from(written.text);
      parts.push(written.bytes);
    });
    parts.push(CLOSE);
    const list = Buffer.concat(parts);
    this.#lists.set(key, list);
    return list;
  }

  #written(shown: ShownRepo, context: ConvertContext, serialize: SerializeRepository): Written {
    const { facts, parentFacts } = shown;
    const key = `${facts.access}\n${context.baseUrl ?? ''}\n${facts.repo.id}`;
    const { repo, ...rest } = facts;
    const made: Made = {
      baseUrl: context.baseUrl,
      row: this.#row(repo),
      rest: factsText(rest),
      parent: parentFacts ? this.#facts(parentFacts) : 'N',
    };
    const known = this.#answers.get(key);
    if (known && sameMade(known.made, made)) return known;
    const text = serialize(toApiRepository(facts, context, parentFacts));
    const written: Written = { made, text, bytes: undefined, serial: this.#serials++ };
    this.#answers.set(key, written);
    return written;
  }

  /** Every field of `facts`: the row's from the fingerprint kept for its object. */
  #facts({ repo, ...rest }: RepoFacts): string {
    return `${factsText(rest)}${this.#row(repo)}`;
  }

  /** The row's fingerprint, kept for its object when that object cannot change. */
  #row(repo: Repository): string {
    let row = this.#rows.get(repo);
    if (row === undefined) {
      row = fingerprint(repo);
      // Only frozen objects are kept: an object that could still change may not stand for its data.
      if (Object.isFrozen(repo) && Object.isFrozen(repo.owner)) this.#rows.set(repo, row);
    }
    return row;
  }
}
