import type { MeasuredCache } from '../../../lib/cache-registry.ts';
import { contentHash } from '../../../lib/content-hash.ts';
import { SizedLru } from '../../../lib/sized-lru.ts';

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
  readonly #hashes: SizedLru<string, string>;

  constructor(maxChars: number) {
    this.#hashes = new SizedLru(maxChars);
  }

  /** Characters of the texts remembered now. */
  get chars(): number {
    return this.#hashes.held;
  }

  /** Its entries and lookups, as the cache registry reports them. */
  get measured(): MeasuredCache {
    return this.#hashes;
  }

  of(text: string): string {
    if (text.length < MIN_REMEMBERED_CHARS) return contentHash(text);
    const known = this.#hashes.get(text);
    if (known !== undefined) return known;
    const hash = contentHash(text);
    this.#hashes.set(text, hash, text.length);
    return hash;
  }
}
