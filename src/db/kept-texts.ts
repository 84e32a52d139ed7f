import { SizedLru } from '../lib/sized-lru.ts';

/** A row whose long text is wanted: its key, and the hash stored beside the text. */
export type TextRef = { readonly id: string; readonly hash: string };

/** A row's text as read, with the hash stored beside it in the same row. */
export type ReadText = { readonly id: string; readonly text: string; readonly hash: string };

/**
 * Long texts of rows (release notes, pull request bodies: up to a megabyte each) kept in memory
 * by the content hash written beside them. Rows are read without the text; only the texts not
 * kept are read, in one more query. A page viewed again then reads no text at all, and gets the
 * very string it got before, which the render cache finds without hashing it again.
 *
 * A hash names its text whatever row or moment it is read in, so a kept text is never stale:
 * an edit writes a new hash, and a text read after the row changed is kept under the hash read
 * with it, never under the one its caller held.
 */
export class KeptTexts {
  readonly #texts: SizedLru<string, string>;

  constructor(maxChars: number) {
    this.#texts = new SizedLru(maxChars);
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
    if (missing.length === 0) return kept as string[];
    const found = new Map((await read(missing)).map((text) => [text.id, text]));
    return rows.map((row, index) => {
      const known = kept[index];
      if (known !== undefined) return known;
      const text = found.get(row.id);
      if (!text) return '';
      if (text.hash !== '')
        this.#texts.set(text.hash, text.text, text.text.length + text.hash.length);
      return text.text;
    });
  }
}
