import type { CacheEntry } from '../domain/ci/cache/cache.types.ts';
import { rfc3339 } from '../lib/time.ts';
import type { ApiActionsCache } from './schemas/action-cache.ts';

/** A cache entry as GitHub's REST API shows it. */
export function toApiActionsCache(entry: CacheEntry): ApiActionsCache {
  return {
    id: entry.id,
    ref: entry.scope,
    key: entry.key,
    version: entry.version,
    last_accessed_at: rfc3339(new Date(entry.lastAccessedAt)),
    created_at: rfc3339(new Date(entry.createdAt)),
    size_in_bytes: entry.size,
  };
}
