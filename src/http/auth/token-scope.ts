import {
  requireScopes,
  type ScopeCategory,
  type ScopeLevel,
} from '../../domain/tokens/token-scopes.ts';
import type { Viewer } from './viewer.ts';

/**
 * The scope check of every HTTP surface that accepts a personal access token (REST, git over
 * HTTP, archives): a token must grant `level` in each of `categories`, or the request is a 403
 * in Gitea's words. Sessions and passwords are not limited by scopes; anonymous callers have
 * no token to limit. Another kind of credential that should be limited adds its case here.
 */
export function requireViewerScope(
  viewer: Viewer,
  level: ScopeLevel,
  categories: readonly ScopeCategory[],
): void {
  if (viewer.kind === 'user' && viewer.via === 'token') {
    requireScopes(viewer.scopes, level, categories);
  }
}

/** Gitea's rule: POST, PUT, PATCH and DELETE write; every other method reads. */
export function scopeLevelOf(method: string): ScopeLevel {
  return method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE'
    ? 'write'
    : 'read';
}
