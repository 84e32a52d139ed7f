import type { ObjectData } from './cat-file-process.ts';

/** Bytes of answers one cat-file process keeps, and the largest answer it keeps. */
const MAX_BYTES = 512 * 1024;
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * A name whose answer can never change: a full object id, alone, peeled (`^{tree}`, `^{}`) or
 * with a path (`<id>:src/a.ts`, looked up in a tree that is itself an object). Git reads a full
 * hex id as that object even where a ref has the same name. Branch names, `HEAD` and short ids
 * move, so their answers are never kept.
 */
const IMMUTABLE_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})(?:\^\{[a-z]*\}|:.*)?$/s;

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
  readonly #answers = new Map<string, ObjectData>();
  #bytes = 0;

  /** The key of a question whose answer can be kept, or undefined when it may change. */
  static keyOf(kind: 'info' | 'contents', object: string, maxBytes: number): string | undefined {
    return IMMUTABLE_NAME.test(object) ? `${kind} ${maxBytes} ${object}` : undefined;
  }

  get(key: string): ObjectData | undefined {
    const answer = this.#answers.get(key);
    if (answer !== undefined) {
      // Most recently used last.
      this.#answers.delete(key);
      this.#answers.set(key, answer);
    }
    return answer;
  }

  keep(key: string, answer: ObjectData): void {
    const size = answer.content.length + key.length;
    if (size > MAX_ANSWER_BYTES || this.#answers.has(key)) return;
    this.#answers.set(key, answer);
    this.#bytes += size;
    for (const [oldest, old] of this.#answers) {
      if (this.#bytes <= MAX_BYTES) break;
      this.#answers.delete(oldest);
      this.#bytes -= old.content.length + oldest.length;
    }
  }
}
