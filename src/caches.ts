/**
 * The caches of a Kiln process, built once by the composition root and handed to their owners:
 * one registry declares each with its freshness rule and bound, and /metrics reports each one's
 * size and hit rate from it. docs/architecture.md ("Caches") lists them all.
 */

import { type GitCaches, gitCaches } from './git/git-caches.ts';
import { CacheRegistry, type MeasuredCache } from './lib/cache-registry.ts';

/** Every cache of the process, and the registry that declares them. */
export type Caches = {
  readonly registry: CacheRegistry;
  /** What is remembered of repositories' files; handed to RepoPaths. */
  readonly git: GitCaches;
};

/** Builds the process's caches, declaring the compiled statements `database` keeps, if any. */
export function buildCaches(database: { readonly statements?: MeasuredCache }): Caches {
  const registry = new CacheRegistry();
  if (database.statements) {
    const declaration = {
      name: 'sqlite_statements',
      key: 'SQL text',
      freshness: 'immutable',
      bound: '500 statements',
    } as const;
    registry.add(declaration, database.statements);
  }
  return { registry, git: gitCaches(registry) };
}
