/**
 * Hides secrets in log lines. Longer values are replaced first, so a secret that contains another
 * one is never half revealed by the shorter replacement.
 */

/** Values too short to mask usefully (masking them would blank out ordinary text). */
const MIN_LENGTH = 1;

/** The set of values to hide in every line the job prints. */
export class Masker {
  #values: string[] = [];

  /** Adds a value (and each of its lines, since logs are split into lines). */
  add(value: string): void {
    const candidates = [value, ...value.split(/\r?\n/)].map((v) => v.trim());
    let changed = false;
    for (const candidate of candidates) {
      if (candidate.length < MIN_LENGTH || this.#values.includes(candidate)) continue;
      this.#values.push(candidate);
      changed = true;
    }
    if (changed) this.#values.sort((a, b) => b.length - a.length);
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
