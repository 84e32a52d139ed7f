import type { CacheRegistry, HitCounter } from '../lib/cache-registry.ts';
import { contentHash } from '../lib/content-hash.ts';
import { withDigitGroups } from '../lib/digit-groups.ts';
import { SizedLru } from '../lib/sized-lru.ts';

/** A row whose long text is wanted: its key, and the hash stored beside the text. */
export type TextRef = { readonly id: string; readonly hash: string };

/** A row's text as read. */
export type ReadText = { readonly id: string; readonly text: string };

/**
 * Long texts of rows (release notes, pull request bodies: up to a megabyte each) kept in memory
 * by their content hash (`contentHash`), which the rows store beside the text. Rows are read
 * without the text; only the texts not kept are read, in one more query. A page viewed again
 * then reads no text at all, and gets the very string it got before, which the render cache
 * finds without hashing it again.
 *
 * A text is kept under the hash of what was read, computed here, never under the hash its row
 * was read with: whatever a row stores, or however it changed between the two queries, what is
 * found under a hash is a text with that hash. So a kept text is never stale while the stores
 * write the hash with the text (an edit writes a new one), on one process or many.
 */
export class KeptTexts {
  readonly #texts: SizedLru<string, string>;
  readonly #maxChars: number;

  constructor(maxChars: number) {
    this.#texts = new SizedLru(maxChars);
    this.#maxChars = maxChars;
  }

  /** Declares these texts as the cache `name` to `caches` (the process's registry), if given. */
  declareTo(caches: CacheRegistry | undefined, name: string): void {
    const bound = `${withDigitGroups(this.#maxChars / 1024 / 1024)} Mi characters`;
    caches?.add({ name, key: 'content hash of the text', freshness: 'immutable', bound }, this);
  }

  /** Lookups of kept texts that found one, and those that did not. */
  get stats(): HitCounter {
    return this.#texts.stats;
  }

  /** Texts kept now. */
  get size(): number {
    return this.#texts.size;
  }

  /**
   * The text of each row, in order: kept ones from memory, the others by `read` (given their
   * ids; a row gone meanwhile reads as empty).
   */
  async of(
    rows: readonly TextRef[],
    read: (ids: string[]) => Promise<readonly ReadText[]>,
  ): Promise<string[]> {
    const kept = rows.map((row) => (row.hash === '' ? undefined : this.#texts.get(row.hash)));
    const missing = rows.filter((_, index) => kept[index] === undefined).map((row) => row.id);
    if (missing.length === 0) return kept.filter((text) => text !== undefined);
    const found = new Map((await read(missing)).map(({ id, text }) => [id, text]));
    return rows.map((row, index) => {
      const known = kept[index];
      if (known !== undefined) return known;
      const text = found.get(row.id);
      if (text === undefined) return '';
      const hash = contentHash(text);
      this.#texts.set(hash, text, text.length + hash.length);
      return text;
    });
  }
}
