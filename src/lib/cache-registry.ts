/**
 * The caches of one process, each declared with the rule that keeps it fresh and the bound that
 * keeps it small, so that an operator (through /metrics) and a reader (docs/architecture.md,
 * "Caches") see every one of them the same way. Caches are built from this folder's primitives
 * (BoundedMap, SizedLru, StampedMemo), which count their own hits and misses.
 */
import { pureCaches } from './pure-caches.ts';

/**
 * How a cache knows an entry still holds, from a closed set:
 * - `immutable`: the key names content that never changes (an object id, a text's hash);
 * - `change-stamp`: the entry is kept with a ChangeClock's stamp and holds while it stands still;
 * - `ttl`: the entry holds for a fixed time after it was read.
 */
export type Freshness = 'immutable' | 'change-stamp' | 'ttl';

/** Hits and misses of one cache's lookups. */
export class HitCounter {
  hits = 0;
  misses = 0;

  /** Counts one lookup; answers `found`, so it can wrap the test of a lookup. */
  count(found: boolean): boolean {
    if (found) this.hits += 1;
    else this.misses += 1;
    return found;
  }
}

/** What a cache shows of itself. */
export type MeasuredCache = {
  readonly stats: { readonly hits: number; readonly misses: number };
  /** Entries held now. */
  readonly size: number;
};

/** A cache as it is declared. */
export type CacheDeclaration = {
  /** A short name in snake case, the `cache` label of its metrics. */
  readonly name: string;
  /** What it keys by. */
  readonly key: string;
  readonly freshness: Freshness;
  /** Its bound, in words (entries, bytes). */
  readonly bound: string;
};

/** One cache's figures at one moment. */
export type CacheReading = CacheDeclaration & {
  readonly size: number;
  readonly hits: number;
  readonly misses: number;
};

/** One cache whose figures are those of `each` added up. */
function summed(each: readonly MeasuredCache[]): MeasuredCache {
  const total = (of: (cache: MeasuredCache) => number) =>
    each.reduce((sum, cache) => sum + of(cache), 0);
  const stats = {
    get hits() {
      return total((cache) => cache.stats.hits);
    },
    get misses() {
      return total((cache) => cache.stats.misses);
    },
  };
  return {
    stats,
    get size() {
      return total((cache) => cache.size);
    },
  };
}

/** The caches of the process; the composition root builds one and hands each cache its part. */
export class CacheRegistry {
  readonly #caches = new Map<
    string,
    { declaration: CacheDeclaration; cache: MeasuredCache; each?: MeasuredCache[] }
  >();

  /** Declares `cache` and answers it. Names are unique. */
  add<C extends MeasuredCache>(declaration: CacheDeclaration, cache: C): C {
    if (this.#caches.has(declaration.name))
      throw new Error(`cache "${declaration.name}" is declared twice`);
    this.#caches.set(declaration.name, { declaration, cache });
    return cache;
  }

  /**
   * Declares `cache` as one of the caches of that name each server of the process keeps (an
   * edge's caches live with its server, and a process may build more than one): they are
   * reported as one, their figures summed. A name declared by `add` is still not taken twice.
   */
  addEach<C extends MeasuredCache>(declaration: CacheDeclaration, cache: C): C {
    const known = this.#caches.get(declaration.name);
    if (known && !known.each) throw new Error(`cache "${declaration.name}" is declared twice`);
    if (known?.each) known.each.push(cache);
    else {
      const each: MeasuredCache[] = [cache];
      this.#caches.set(declaration.name, { declaration, cache: summed(each), each });
    }
    return cache;
  }

  /**
   * Every cache's size, hits and misses now, in the order they were declared, the caches of pure
   * functions (pure-caches.ts) last.
   */
  readings(): CacheReading[] {
    return [...this.#caches.values(), ...pureCaches()].map(({ declaration, cache }) => ({
      ...declaration,
      size: cache.size,
      hits: cache.stats.hits,
      misses: cache.stats.misses,
    }));
  }
}
