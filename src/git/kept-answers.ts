import { HitCounter, type MeasuredCache } from '../lib/cache-registry.ts';
import { ownCopy } from '../lib/own-copy.ts';
import { SizedLru } from '../lib/sized-lru.ts';
import type { ObjectData } from './cat-file-process.ts';

/** A question whose answer can be kept, and the length of the object id it names. */
export type KeptQuestion = { readonly key: string; readonly idLength: number };

/** Bytes of answers one cat-file process keeps, and the largest answer it keeps. */
const MAX_BYTES = 512 * 1024;
const MAX_ANSWER_BYTES = 64 * 1024;
/** What an entry costs beyond its bytes and key (the map entry, the answer, its Buffer). */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * A name whose answer can never change: a full object id, alone, peeled (`^{tree}`, `^{}`) or
 * with a path (`<id>:src/a.ts`, looked up in a tree that is itself an object). Git reads hex of
 * its own id length as that object even where a ref has the same name; hex of the other length
 * (64 characters in a SHA-1 repository, 40 in a SHA-256 one) is a ref name that can move, which
 * `keep` tells from the length of the id that answered. Branch names, `HEAD` and short ids move,
 * so their answers are never kept.
 */
const IMMUTABLE_NAME = /^([0-9a-f]{40}|[0-9a-f]{64})(?:\^\{[a-z]*\}|:.*)?$/s;

/**
 * Answers of one cat-file process to names that can never change, kept while the process
 * lives. A page view asks for the same trees and paths under the same commit again and again;
 * each question is a round trip through a pipe and a context switch on both sides.
 *
 * Kept per process, not per repository: a process is replaced when what its repository may
 * read changes (its alternates file, cat-file-pool.ts) and closed when the repository is
 * deleted, and these answers go with it, so nothing kept outlives a cut loan. Misses are never
 * kept (a push can bring the object). Bounded in bytes, least recently used out first.
 */
export class KeptAnswers {
  readonly #answers = new SizedLru<string, ObjectData>(MAX_BYTES);
  readonly #tally: KeptAnswersTally;

  /** `tally` sums this process's answers with its pool's others (a fresh one by default). */
  constructor(tally = new KeptAnswersTally()) {
    this.#tally = tally;
  }

  /**
   * The question, when its answer can be kept; undefined when it may change. An answer is kept
   * only when the id that answered has the length of the id in the name (see `keep`).
   */
  static keyOf(
    kind: 'info' | 'contents',
    object: string,
    maxBytes: number,
  ): KeptQuestion | undefined {
    const idLength = IMMUTABLE_NAME.exec(object)?.[1]?.length;
    return idLength === undefined ? undefined : { key: `${kind} ${maxBytes} ${object}`, idLength };
  }

  get(question: KeptQuestion): ObjectData | undefined {
    const found = this.#answers.get(question.key);
    this.#tally.stats.count(found !== undefined);
    return found;
  }

  /** Keeps the answer to `question`. */
  keep(question: KeptQuestion, answer: ObjectData): void {
    const { key, idLength } = question;
    const size = answer.content.length + key.length + ENTRY_OVERHEAD_BYTES;
    if (size > MAX_ANSWER_BYTES || this.#answers.has(key)) return;
    // A name of the other id length was read as a ref: its answer can move.
    if (idLength !== answer.sha.length) return;
    const before = this.#answers.size;
    this.#answers.set(key, { ...answer, content: ownCopy(answer.content) }, size);
    this.#tally.entries += this.#answers.size - before;
  }

  /** Takes this process's answers out of the tally: they go with the process. */
  forget(): void {
    this.#tally.entries -= this.#answers.size;
  }
}

/**
 * The answers kept by every process of one cat-file pool, as one cache of the registry: the
 * entries the live processes hold, and their lookups.
 */
export class KeptAnswersTally implements MeasuredCache {
  readonly stats = new HitCounter();
  entries = 0;

  get size(): number {
    return this.entries;
  }
}
