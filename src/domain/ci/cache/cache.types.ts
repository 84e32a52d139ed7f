/** An entry of a repository's CI cache. */
export type CacheEntry = {
  readonly id: number;
  readonly repoId: string;
  readonly scope: string;
  readonly key: string;
  readonly version: string;
  readonly status: 'reserved' | 'ready';
  readonly size: number;
  readonly linkSecret: string;
  readonly createdAt: number;
  readonly lastAccessedAt: number;
};

/** What a reservation records. */
export type NewCacheEntry = Pick<CacheEntry, 'repoId' | 'scope' | 'key' | 'version' | 'linkSecret'>;

/** Filters of a repository's list of entries. */
export type CacheFilter = { readonly scope?: string; readonly keyPrefix?: string };
