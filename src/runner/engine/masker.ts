/**
 * Hides secrets in log lines. Longer values are replaced first, so a secret that contains another
 * one is never half revealed by the shorter replacement.
 *
 * Invariant: no piece of a secret of `MIN_FRAGMENT_LENGTH` characters or more reaches the log in
 * any form the value takes on its way there. A value is printed whole, line by line (the log is
 * split at `\n`, with a `\r` before it dropped), split at a bare `\r` too (a terminal, or a tool
 * turning old Mac line ends into lines), and with its carriage returns stripped (a tool that
 * normalises line ends). Each of those forms, and each line of each, is masked. Lines shorter
 * than `MIN_FRAGMENT_LENGTH` are not: masking two letters everywhere would blank ordinary text
 * and, by where the stars fall, tell the letters. The server refuses secrets that short
 * (docs/security.md, "Smaller guarantees"); a value added with `::add-mask::` is still masked
 * whole whatever its length.
 */

/** Shortest line of a multi-line value that is masked on its own. */
export const MIN_FRAGMENT_LENGTH = 4;

/** Every line break a log line may have been split at, alone or in pairs. */
const ANY_BREAK = /\r\n|\r|\n/;
const LINE_BREAK = /\r?\n/;

/** The forms `value` can take in a log line, trimmed (whitespace at a line's ends is not the secret). */
export function maskedForms(value: string): string[] {
  const whole = value.trim();
  const forms = new Set<string>(whole === '' ? [] : [whole]);
  for (const variant of [value, value.replaceAll('\r', '')]) {
    const stripped = variant.trim();
    if (stripped.length >= MIN_FRAGMENT_LENGTH) forms.add(stripped);
    for (const piece of [...variant.split(LINE_BREAK), ...variant.split(ANY_BREAK)]) {
      const line = piece.trim();
      if (line.length >= MIN_FRAGMENT_LENGTH) forms.add(line);
    }
  }
  return [...forms];
}

/** The set of values to hide in every line the job prints. */
export class Masker {
  #values: string[] = [];
  /** The values that fit on one line: the only ones a line of output can contain. */
  #lineValues: string[] = [];

  /** How many values are hidden. */
  get size(): number {
    return this.#values.length;
  }

  /** Adds a value and every form it can take in the log (`maskedForms`). */
  add(value: string): void {
    let changed = false;
    for (const candidate of maskedForms(value)) {
      if (this.#values.includes(candidate)) continue;
      this.#values.push(candidate);
      changed = true;
    }
    if (!changed) return;
    this.#values.sort((a, b) => b.length - a.length);
    this.#lineValues = this.#values.filter((v) => !v.includes('\n'));
  }

  /**
   * Whether any value occurs in any of the lines. Most output contains none, and answering that
   * for a whole piece of output costs one search per value instead of one per value and line.
   * The lines are joined with a line break, which no value searched for contains, so a match
   * never spans two lines.
   */
  occursIn(lines: readonly string[]): boolean {
    if (this.#lineValues.length === 0) return false;
    const text = lines.length === 1 ? (lines[0] ?? '') : lines.join('\n');
    return this.#lineValues.some((value) => text.includes(value));
  }

  /** The line with every known value replaced by `***`. */
  mask(line: string): string {
    let out = line;
    for (const value of this.#values) {
      if (out.includes(value)) out = out.replaceAll(value, '***');
    }
    return out;
  }
}
