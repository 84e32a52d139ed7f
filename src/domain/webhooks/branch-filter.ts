import { BoundedMap } from '../../lib/bounded-map.ts';
import { pureCache } from '../../lib/pure-caches.ts';

/**
 * Whether `branch` passes a hook's branch filter: a glob as Gitea reads it (gobwas/glob without
 * separators): `*` any run of characters, slashes included; `?` one character; `[abc]` a class;
 * `{main,release/*}` alternatives. An empty filter or `*` passes everything.
 */
export function branchMatches(filter: string, branch: string): boolean {
  const trimmed = filter.trim();
  if (trimmed === '' || trimmed === '*') return true;
  return globRegExp(trimmed).test(branch);
}

/** Filters come from hooks' settings, so the bound holds however many there are. */
const compiled = pureCache(
  { name: 'webhook_branch_filters', key: 'branch filter glob', bound: '1,000 filters' },
  new BoundedMap<string, RegExp>(1_000),
);

function globRegExp(glob: string): RegExp {
  const known = compiled.get(glob);
  if (known) return known;
  let out = '';
  let depth = 0;
  for (let at = 0; at < glob.length; at += 1) {
    const char = glob.charAt(at);
    if (char === '\\' && at + 1 < glob.length) {
      at += 1;
      out += escapeRegExp(glob[at] as string);
    } else if (char === '*') out += '.*';
    else if (char === '?') out += '.';
    else if (char === '{') {
      depth += 1;
      out += '(?:';
    } else if (char === '}' && depth > 0) {
      depth -= 1;
      out += ')';
    } else if (char === ',' && depth > 0) out += '|';
    else if (char === '[') {
      const end = glob.indexOf(']', at + 1);
      if (end < 0) out += '\\[';
      else {
        const body = glob
          .slice(at + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        out += `[${body}]`;
        at = end;
      }
    } else out += escapeRegExp(char);
  }
  out += ')'.repeat(depth);
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^${out}$`);
  } catch {
    // A filter that is no glob matches only itself.
    pattern = new RegExp(`^${escapeRegExp(glob)}$`);
  }
  compiled.set(glob, pattern);
  return pattern;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+^$()|[\]\\{}*?]/g, '\\$&');
}
