/**
 * GitHub's filter patterns for branches, tags and paths:
 * `*` matches any characters but `/`, `**` any characters including `/`, `?` one character but
 * `/`, `+` one or more of the preceding character, `[…]` one character of a set or range, `\`
 * escapes the next character. A pattern starting with `!` (inside a list) excludes what it
 * matches; patterns are read in order and the last one that matches decides.
 */
import { BoundedMap } from '../../../lib/bounded-map.ts';
import { pureCache } from '../../../lib/pure-caches.ts';

/** Patterns come from workflows, so the bound holds however many a repository writes. */
const cache = pureCache(
  { name: 'workflow_filter_patterns', key: 'branch, tag or path pattern', bound: '1,000 patterns' },
  new BoundedMap<string, RegExp>(1_000),
);

/** The regular expression for one pattern (without its `!`), anchored at both ends. */
export function globToRegExp(pattern: string): RegExp {
  const known = cache.get(pattern);
  if (known !== undefined) return known;
  let source = '';
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern.charAt(at);
    if (char === '*') {
      if (pattern[at + 1] === '*') {
        // `**/` also matches nothing at all, so `a/**/b` matches `a/b`.
        if (pattern[at + 2] === '/') {
          source += '(?:.*/)?';
          at += 2;
        } else {
          source += '.*';
          at += 1;
        }
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '+') {
      source += '+';
    } else if (char === '[') {
      const end = pattern.indexOf(']', at + 1);
      if (end < 0) {
        source += '\\[';
      } else {
        const set = pattern.slice(at + 1, end).replace(/[\\^\]]/g, (c) => `\\${c}`);
        source += `[${set}]`;
        at = end;
      }
    } else if (char === '\\' && at + 1 < pattern.length) {
      source += escapeRegExp(pattern.charAt(at + 1));
      at += 1;
    } else {
      source += escapeRegExp(char);
    }
  }
  const regexp = new RegExp(`^${source}$`, 'u');
  cache.set(pattern, regexp);
  return regexp;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, (c) => `\\${c}`);
}

/** Whether `value` is selected by an ordered pattern list with `!` exclusions. */
export function matchesPatterns(patterns: readonly string[], value: string): boolean {
  let selected = false;
  for (const pattern of patterns) {
    if (pattern.startsWith('!')) {
      if (selected && globToRegExp(pattern.slice(1)).test(value)) selected = false;
    } else if (!selected && globToRegExp(pattern).test(value)) {
      selected = true;
    }
  }
  return selected;
}

/** Whether any of the values is selected by the list (for `paths`). */
export function anyMatches(patterns: readonly string[], values: readonly string[]): boolean {
  return values.some((value) => matchesPatterns(patterns, value));
}

/**
 * Whether some value escapes an ignore list (for `paths-ignore`, `branches-ignore`): the event is
 * skipped only when every value is ignored.
 */
export function anyEscapes(ignored: readonly string[], values: readonly string[]): boolean {
  return values.some((value) => !matchesPatterns(ignored, value));
}
