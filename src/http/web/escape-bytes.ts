/**
 * Escaping of ASCII markup characters (`& < > " ' \``) done on the text's UTF-8 bytes, for
 * `escapeHtml` (html.ts).
 *
 * Why bytes: escaping a long line dense with those characters in JavaScript appends a slice and
 * a reference per character, and V8 keeps such a string as a rope of thousands of nodes until it
 * is flattened (a log line of 4,096 `y<&` characters: about 5,000 nodes for 14 KB of markup).
 * A log page of such lines filled the young generation several times over and spent most of its
 * time in the collector (docs/performance.md, hostile CI input). Here the text is encoded into a
 * reused buffer, escaped byte by byte into another and decoded once: one flat string is made.
 *
 * Safe on bytes: in UTF-8 a byte below 0x80 is always a whole ASCII character, never part of
 * another character's encoding. Only well-formed text comes here (a lone surrogate would come
 * back as U+FFFD), and only texts up to `MAX_CHARS`, so the buffers stay small.
 */

/** Longest text escaped here, in UTF-16 units; longer ones are escaped as strings. */
export const MAX_CHARS = 16 * 1024;

/** The longest reference a caller may give, in bytes (`&quot;`). */
const WIDEST = 6;
/** A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4). */
const input = Buffer.allocUnsafe(MAX_CHARS * 3);
const output = Buffer.allocUnsafe(MAX_CHARS * 3 * WIDEST);

/**
 * An escaper that replaces each ASCII character of `references` by its reference (at most six
 * ASCII bytes). What it returns takes `text` well-formed and at most `MAX_CHARS` long (the caller
 * checks); `text` itself when nothing in it needs a reference.
 */
export function byteEscaper(
  references: Readonly<Record<string, string>>,
): (text: string) => string {
  const byByte: (Buffer | undefined)[] = Array.from({ length: 256 }, () => undefined);
  for (const [character, reference] of Object.entries(references)) {
    const code = character.charCodeAt(0);
    if (character.length !== 1 || code >= 0x80 || reference.length > WIDEST) {
      throw new Error(`cannot escape ${character} as ${reference} on bytes`);
    }
    byByte[code] = Buffer.from(reference, 'latin1');
  }
  return (text) => {
    const length = input.write(text, 0, 'utf8');
    let at = 0;
    let escaped = false;
    for (let i = 0; i < length; i++) {
      const byte = input[i] as number;
      const reference = byByte[byte];
      if (reference === undefined) {
        output[at++] = byte;
        continue;
      }
      escaped = true;
      for (let r = 0; r < reference.length; r++) output[at++] = reference[r] as number;
    }
    return escaped ? output.toString('utf8', 0, at) : text;
  };
}
