/**
 * The combinations of a matrix's dimensions that its exclusions leave, counted without listing
 * them, and listed at a cost that follows what is left rather than the product. This is what
 * lets matrix.ts refuse a matrix over the cap at the cost of its declaration.
 *
 * The dimensions are walked in order, following only the values an exclusion still in play
 * names: every value no such exclusion names leads to the same exclusions below, so it is
 * counted once and multiplied, and a prefix no exclusion can still match counts the product of
 * the remaining dimensions at once. Counts are remembered by level and exclusions in play.
 */

/** A dimension: its key and the identity (JSON text) of each of its values, in order. */
export type Dimension = { readonly key: string; readonly ids: readonly string[] };

/** An exclusion or a constraint: key → identity of the value it requires. */
export type Assignment = ReadonlyMap<string, string>;

export class MatrixSpace {
  readonly #dimensions: readonly Dimension[];
  readonly #excludes: readonly Assignment[];
  /** Per exclusion, the level of its last key, where it is complete and removes what it matches. */
  readonly #lastLevel: readonly number[];
  /** Per dimension, the positions of each distinct value. */
  readonly #positions: readonly ReadonlyMap<string, readonly number[]>[];

  /** Exclusions may only name dimension keys (the caller checks). */
  constructor(dimensions: readonly Dimension[], excludes: readonly Assignment[]) {
    this.#dimensions = dimensions;
    this.#excludes = excludes;
    const levelOf = new Map(dimensions.map((dimension, level) => [dimension.key, level]));
    this.#lastLevel = excludes.map((entry) =>
      Math.max(-1, ...[...entry.keys()].map((key) => levelOf.get(key) ?? -1)),
    );
    this.#positions = dimensions.map((dimension) => {
      const positions = new Map<string, number[]>();
      dimension.ids.forEach((id, at) => {
        const list = positions.get(id);
        if (list === undefined) positions.set(id, [at]);
        else list.push(at);
      });
      return positions;
    });
  }

  /** How many combinations are left, of those agreeing with `fixed` when given. */
  count(fixed: Assignment = new Map()): number {
    // An empty exclusion matches every combination.
    if (this.#lastLevel.some((level) => level < 0)) return 0;
    return new Counter(this.#dimensions, this.#excludes, this.#lastLevel, fixed).root();
  }

  /**
   * The positions (one value index per dimension) of every combination left, in the order of
   * the product (first dimension slowest). Only prefixes with combinations left are visited, and
   * of a dimension only the values that lead to some, so the work follows the result's size.
   */
  positions(): number[][] {
    if (this.#lastLevel.some((level) => level < 0)) return [];
    const counter = new Counter(this.#dimensions, this.#excludes, this.#lastLevel, new Map());
    const found: number[][] = [];
    const walk = (level: number, active: readonly number[], prefix: number[]) => {
      if (level === this.#dimensions.length) {
        found.push(prefix);
        return;
      }
      const positions = this.#positions[level] as ReadonlyMap<string, readonly number[]>;
      const named = counter.named(level, active);
      const alive: { at: number; still: readonly number[] }[] = [];
      for (const id of named) {
        const still = counter.step(level, active, id);
        if (still === undefined || counter.at(level + 1, still) === 0) continue;
        for (const at of positions.get(id) ?? []) alive.push({ at, still });
      }
      const unnamed = counter.step(level, active, undefined);
      // When values no exclusion names lead somewhere, each leads to at least one combination,
      // so there are no more of them than combinations: listing them is bounded by the result.
      if (unnamed !== undefined && counter.at(level + 1, unnamed) > 0) {
        for (const [id, list] of positions) {
          if (!named.has(id)) for (const at of list) alive.push({ at, still: unnamed });
        }
      }
      alive.sort((a, b) => a.at - b.at);
      for (const { at, still } of alive) walk(level + 1, still, [...prefix, at]);
    };
    if (counter.root() > 0) walk(0, counter.all(), []);
    return found;
  }
}

/** The remembered counts of one question (one `fixed` constraint). */
class Counter {
  readonly #dimensions: readonly Dimension[];
  readonly #excludes: readonly Assignment[];
  readonly #lastLevel: readonly number[];
  readonly #fixed: Assignment;
  /** Combinations of the dimensions from a level on, agreeing with `fixed`, with no exclusion. */
  readonly #suffix: number[];
  readonly #memo = new Map<string, number>();

  constructor(
    dimensions: readonly Dimension[],
    excludes: readonly Assignment[],
    lastLevel: readonly number[],
    fixed: Assignment,
  ) {
    this.#dimensions = dimensions;
    this.#excludes = excludes;
    this.#lastLevel = lastLevel;
    this.#fixed = fixed;
    this.#suffix = new Array<number>(dimensions.length + 1).fill(1);
    for (let level = dimensions.length - 1; level >= 0; level--) {
      const { key, ids } = dimensions[level] as Dimension;
      const wanted = fixed.get(key);
      const size = wanted === undefined ? ids.length : ids.filter((id) => id === wanted).length;
      this.#suffix[level] = size * (this.#suffix[level + 1] as number);
    }
  }

  all(): number[] {
    return this.#excludes.map((_, at) => at);
  }

  root(): number {
    return this.at(0, this.all());
  }

  /** Identities of this level's values named by the exclusions in play. */
  named(level: number, active: readonly number[]): Set<string> {
    const key = (this.#dimensions[level] as Dimension).key;
    const named = new Set<string>();
    for (const entry of active) {
      const id = this.#excludes[entry]?.get(key);
      if (id !== undefined) named.add(id);
    }
    return named;
  }

  /** Combinations from `level` on, with the exclusions `active` still in play. */
  at(level: number, active: readonly number[]): number {
    if (active.length === 0 || level === this.#dimensions.length) {
      return this.#suffix[level] as number;
    }
    const memoKey = `${level}:${active.join(',')}`;
    const known = this.#memo.get(memoKey);
    if (known !== undefined) return known;
    const { key, ids } = this.#dimensions[level] as Dimension;
    const wanted = this.#fixed.get(key);
    const named = this.named(level, active);
    const times = new Map<string, number>();
    let unnamed = 0;
    for (const id of ids) {
      if (wanted !== undefined && id !== wanted) continue;
      if (named.has(id)) times.set(id, (times.get(id) ?? 0) + 1);
      else unnamed++;
    }
    let total = 0;
    for (const [id, count] of times) total += count * this.#below(level, active, id);
    if (unnamed > 0) total += unnamed * this.#below(level, active, undefined);
    this.#memo.set(memoKey, total);
    return total;
  }

  #below(level: number, active: readonly number[], id: string | undefined): number {
    const still = this.step(level, active, id);
    return still === undefined ? 0 : this.at(level + 1, still);
  }

  /**
   * The exclusions still in play once this level's value is `id` (undefined: a value none
   * names), or undefined when one of them is then complete: everything below is excluded.
   */
  step(level: number, active: readonly number[], id: string | undefined): number[] | undefined {
    const key = (this.#dimensions[level] as Dimension).key;
    const still: number[] = [];
    for (const entry of active) {
      const needs = this.#excludes[entry]?.get(key);
      if (needs !== undefined && needs !== id) continue;
      if (this.#lastLevel[entry] === level) return undefined;
      still.push(entry);
    }
    return still;
  }
}
