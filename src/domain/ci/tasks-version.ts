import { BoundedMap } from '../../lib/bounded-map.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { withDigitGroups } from '../../lib/digit-groups.ts';
import type { RunnerScope } from '../runners/runner.types.ts';
import type { TasksVersionStore } from './tasks-version.store.ts';

/** The counter a runner of this scope polls: `global`, `owner:<org id>` or `repo:<repo id>`. */
export function versionScopeOf(scope: RunnerScope): string {
  if (scope.kind === 'organisation') return `owner:${scope.orgId}`;
  if (scope.kind === 'repository') return `repo:${scope.repoId}`;
  return 'global';
}

/** The three counters a new pending job of a repository moves. */
export function versionScopesOfRepo(repo: { id: string; ownerId: string }): string[] {
  return ['global', `owner:${repo.ownerId}`, `repo:${repo.id}`];
}

type Cached = { readonly version: number; readonly readAt: number };

/**
 * `tasks_version` per scope, as FetchTask answers it. The counters live in the database so that
 * replicas agree; each process keeps what it read for `ttlMs`, so a runner polling with the current
 * version costs no query at all (200 runners every 2 s: at most one read per scope per `ttlMs`).
 * A bump made here is seen at once; one made by another replica within `ttlMs`.
 * Never 0: a runner reads 0 as a server without versions.
 */
export class TasksVersions {
  readonly #store: TasksVersionStore;
  readonly #ttlMs: number;
  /** Bounded: scopes come from runners' registrations, one per organisation or repository. */
  readonly #cache = new BoundedMap<string, Cached>(10_000);

  constructor(
    store: TasksVersionStore,
    options: { ttlMs?: number; caches?: CacheRegistry | undefined } = {},
  ) {
    this.#store = store;
    this.#ttlMs = options.ttlMs ?? 1000;
    options.caches?.add(
      {
        name: 'ci_tasks_versions',
        key: 'runner scope',
        freshness: 'ttl',
        bound: `${withDigitGroups(this.#cache.limit)} scopes`,
      },
      this.#cache,
    );
  }

  async current(scope: string, now = Date.now()): Promise<number> {
    const cached = this.#cache.peek(scope);
    const fresh = cached !== undefined && now - cached.readAt < this.#ttlMs;
    if (this.#cache.stats.count(fresh) && cached) return cached.version;
    const version = Math.max(1, (await this.#store.find(scope)) ?? 1);
    this.#cache.set(scope, { version, readAt: now });
    return version;
  }

  /** Drops what this process remembers of the scopes, after it bumped them. */
  forget(scopes: readonly string[]): void {
    for (const scope of scopes) this.#cache.delete(scope);
  }
}
