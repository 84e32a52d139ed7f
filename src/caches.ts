/**
 * The caches of a Kiln process, built once by the composition root and handed to their owners:
 * one registry declares each with its freshness rule and bound, and /metrics reports each one's
 * size and hit rate from it. docs/architecture.md ("Caches") lists them all.
 */

import { type GitCaches, gitCaches } from './git/git-caches.ts';
import { CacheRegistry } from './lib/cache-registry.ts';

/** Every cache of the process, and the registry that declares them. */
export type Caches = {
  readonly registry: CacheRegistry;
  /** What is remembered of repositories' files; handed to RepoPaths. */
  readonly git: GitCaches;
};

/** Builds the process's caches. */
export function buildCaches(): Caches {
  const registry = new CacheRegistry();
  return { registry, git: gitCaches(registry) };
}
