/**
 * Hides secrets in log lines. Longer values are replaced first, so a secret that contains another
 * one is never half revealed by the shorter replacement.
 */

/** Values too short to mask usefully (masking them would blank out ordinary text). */
const MIN_LENGTH = 1;

/** The set of values to hide in every line the job prints. */
export class Masker {
  #values: string[] = [];
  /** The values that fit on one line: the only ones a line of output can contain. */
  #lineValues: string[] = [];

  /** How many values are hidden. */
  get size(): number {
    return this.#values.length;
  }

  /** Adds a value (and each of its lines, since logs are split into lines). */
  add(value: string): void {
    const candidates = [value, ...value.split(/\r?\n/)].map((v) => v.trim());
    let changed = false;
    for (const candidate of candidates) {
      if (candidate.length < MIN_LENGTH || this.#values.includes(candidate)) continue;
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
