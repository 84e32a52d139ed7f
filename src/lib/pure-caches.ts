/**
 * Caches of pure functions: what a function of its key alone computes (a pattern's regular
 * expression, an icon's SVG, a UUID's folded id) never goes stale, so such a cache has no
 * freshness to decide and no owner to hand it to; it may live beside its function. Each is still
 * declared here, with its bound, so the registry of the process (cache-registry.ts) reports it
 * with the others. Every other cache is built by the composition root; an architecture test
 * refuses any other cache at the top level of a module.
 *
 * @example
 *   const compiled = pureCache(
 *     { name: 'glob_patterns', key: 'pattern', bound: '1,000 patterns' },
 *     new BoundedMap<string, RegExp>(1_000),
 *   );
 */
import type { CacheDeclaration, MeasuredCache } from './cache-registry.ts';

const declared: { declaration: CacheDeclaration; cache: MeasuredCache }[] = [];

/** Declares `cache`, which holds values of a pure function, and answers it. */
export function pureCache<C extends MeasuredCache>(
  declaration: Omit<CacheDeclaration, 'freshness'>,
  cache: C,
): C {
  declared.push({ declaration: { ...declaration, freshness: 'immutable' }, cache });
  return cache;
}

/** Every cache declared through `pureCache`, in the order of declaration. */
export function pureCaches(): readonly { declaration: CacheDeclaration; cache: MeasuredCache }[] {
  return declared;
}
