import { Forbidden, Invalid } from '../errors.ts';

/**
 * What a personal access token may do, with Gitea's scope names (models/auth/access_token_scope.go):
 * one level, read or write, per category; `write:x` includes `read:x`, and `all` is write on
 * every category. A token without a level in a category may do nothing there.
 */

/** Gitea's categories, in the order Gitea writes a normalized scope list. */
export const SCOPE_CATEGORIES = [
  'activitypub',
  'admin',
  'misc',
  'notification',
  'organization',
  'package',
  'issue',
  'repository',
  'user',
] as const;

export type ScopeCategory = (typeof SCOPE_CATEGORIES)[number];

/**
 * The categories that guard something in Kiln, which the tokens page offers. Gitea's others
 * (issues, packages, notifications, ActivityPub, misc) are still read from clients, which send
 * them, but a person choosing scopes by hand is not offered features Kiln does not have.
 */
export const KILN_SCOPE_CATEGORIES = [
  'repository',
  'organization',
  'user',
  'admin',
] as const satisfies readonly ScopeCategory[];
export type ScopeLevel = 'read' | 'write';

/** A parsed, normalized set of scopes: the level granted per category (absent: none). */
export type TokenScopes = ReadonlyMap<ScopeCategory, ScopeLevel>;

/** Every category at write: what `all` means, and what tokens made before scopes existed keep. */
export const ALL_SCOPES: TokenScopes = new Map(SCOPE_CATEGORIES.map((c) => [c, 'write']));

const CATEGORY_SET: ReadonlySet<string> = new Set(SCOPE_CATEGORIES);

function isCategory(value: string): value is ScopeCategory {
  return CATEGORY_SET.has(value);
}

/**
 * Reads scope names (`read:repository`, `write:user`, `all`), as a list or one comma-separated
 * string, as Gitea does: duplicates and empty entries are ignored, a write covers the read of
 * its category, and an unknown name is refused. An empty result is refused too: a token that
 * may do nothing is a mistake, and Gitea refuses it the same way.
 */
export function parseScopes(input: string | readonly string[]): TokenScopes {
  const names = (typeof input === 'string' ? [input] : input).flatMap((part) => part.split(','));
  const scopes = new Map<ScopeCategory, ScopeLevel>();
  for (const raw of names) {
    const name = raw.trim();
    if (name === '') continue;
    if (name === 'all') return ALL_SCOPES;
    const [level, category, ...rest] = name.split(':');
    if (
      (level !== 'read' && level !== 'write') ||
      category === undefined ||
      !isCategory(category) ||
      rest.length > 0
    ) {
      throw new Invalid(`invalid access token scope: ${name.slice(0, 100)}`);
    }
    if (scopes.get(category) !== 'write') scopes.set(category, level);
  }
  if (scopes.size === 0) throw new Invalid('access token must have a scope');
  if (scopes.size === SCOPE_CATEGORIES.length && [...scopes.values()].every((l) => l === 'write')) {
    return ALL_SCOPES;
  }
  return scopes;
}

/** The normalized names of `scopes`, in Gitea's order: `['all']` when every category is write. */
export function scopeNames(scopes: TokenScopes): string[] {
  const names: string[] = [];
  for (const category of SCOPE_CATEGORIES) {
    const level = scopes.get(category);
    if (level) names.push(`${level}:${category}`);
  }
  return names.length === SCOPE_CATEGORIES.length && names.every((n) => n.startsWith('write:'))
    ? ['all']
    : names;
}

/** Whether `scopes` grants `level` in `category` (write implies read). */
export function grants(scopes: TokenScopes, level: ScopeLevel, category: ScopeCategory): boolean {
  const granted = scopes.get(category);
  return granted === 'write' || (granted === 'read' && level === 'read');
}

/**
 * The one scope check for every surface that accepts a personal access token: REST, git over
 * HTTP, archives and MCP. Every category in `categories` must be granted at `level`, as in
 * Gitea; the refusal names the scopes that were needed in Gitea's words.
 */
export function requireScopes(
  scopes: TokenScopes,
  level: ScopeLevel,
  categories: readonly ScopeCategory[],
): void {
  if (categories.every((category) => grants(scopes, level, category))) return;
  const needed = categories.map((category) => `${level}:${category}`).join(' ');
  throw new Forbidden(`token does not have at least one of required scope(s): [${needed}]`);
}
