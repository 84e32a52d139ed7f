import { createHash } from 'node:crypto';

/** Below this many characters hashing costs less than remembering. */
const MIN_REMEMBERED_CHARS = 16 * 1024;

/**
 * Content hashes of documents, those of long documents seen lately remembered by their text.
 *
 * A release's notes or a pull request's body is read from the database on every view as a new
 * string, and its hash keys the render kept of it. Hashing half a megabyte costs a quarter of a
 * millisecond of the request thread on every view; finding the same text among those hashed
 * lately costs a comparison of its characters, which is several times cheaper (a Map holding
 * strings that long tells them apart by length before content). The texts remembered are bounded
 * in characters; the least recently used are forgotten first.
 *
 * @example
 *   const hashes = new DocumentHashes(8 * 1024 * 1024);
 *   hashes.of(release.body) === hashes.of(sameBodyReadAgain); // the second without hashing
 */
export class DocumentHashes {
  readonly #hashes = new Map<string, string>();
  readonly #maxChars: number;
  #chars = 0;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** Characters of the texts remembered now. */
  get chars(): number {
    return this.#chars;
  }

  of(text: string): string {
    if (text.length < MIN_REMEMBERED_CHARS) return contentHash(text);
    const known = this.#hashes.get(text);
    if (known !== undefined) {
      // The most recently used last: forgetting starts from the front.
      this.#hashes.delete(text);
      this.#hashes.set(text, known);
      return known;
    }
    const hash = contentHash(text);
    if (text.length > this.#maxChars) return hash;
    this.#hashes.set(text, hash);
    this.#chars += text.length;
    for (const old of this.#hashes.keys()) {
      if (this.#chars <= this.#maxChars) break;
      this.#hashes.delete(old);
      this.#chars -= old.length;
    }
    return hash;
  }
}

/** SHA-256 of the text's UTF-8 bytes, base64url. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}
