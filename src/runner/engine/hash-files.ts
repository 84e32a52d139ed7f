/**
 * `hashFiles(pattern, …)` as GitHub defines it: glob patterns relative to the workspace (one per
 * argument or per line; `#` starts a comment; `!` excludes), the last pattern that matches a file
 * deciding whether it counts, a pattern matching a directory matching everything under it, and
 * only files under the workspace. The answer is the SHA-256 of the concatenated SHA-256 digests
 * of the matched files' contents, taken in sorted path order, in hex; the empty string when no
 * file matches.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

type Pattern = { readonly negated: boolean; readonly regex: RegExp };

const SPECIAL = /[.+^${}()|\\]/g;

/** One path segment of a glob as a regular expression: `*`, `?` and `[…]`; dots match too. */
function segmentSource(segment: string): string {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i] ?? '';
    if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else if (char === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close < 0) out += '\\[';
      else {
        const body = segment
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replaceAll('\\', '\\\\');
        out += `[${body}]`;
        i = close;
      }
    } else out += char.replace(SPECIAL, '\\$&');
  }
  return out;
}

/** A glob relative to the workspace as a regular expression over `/`-separated paths. */
export function globRegex(glob: string): RegExp {
  const segments = glob.split('/').filter((s) => s !== '' && s !== '.');
  let source = '';
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === '**') source += last ? '.*' : '(?:[^/]+/)*';
    else source += segmentSource(segment) + (last ? '' : '/');
  }
  // A directory that matches stands for everything beneath it.
  return new RegExp(`^${source}(?:/.*)?$`);
}

/** The patterns of all arguments, relative to the workspace; those outside it never match. */
function parsePatterns(args: readonly string[], workspace: string): Pattern[] {
  const patterns: Pattern[] = [];
  for (const line of args.flatMap((arg) => arg.split(/\r?\n/))) {
    let text = line.trim();
    if (text === '' || text.startsWith('#')) continue;
    let negated = false;
    while (text.startsWith('!')) {
      negated = !negated;
      text = text.slice(1).trim();
    }
    const absolute = isAbsolute(text) ? text : join(workspace, text);
    const rel = relative(workspace, absolute.replace(/[/\\]+$/, ''))
      .split(sep)
      .join('/');
    if (rel === '..' || rel.startsWith('../') || isAbsolute(rel)) continue;
    patterns.push({ negated, regex: rel === '' ? /^/ : globRegex(rel) });
  }
  return patterns;
}

/** Every file under `root` (symbolic links to files included), as sorted `/`-separated paths. */
function filesUnder(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = prefix + entry.name;
      if (entry.isDirectory()) walk(join(dir, entry.name), `${path}/`);
      else if (entry.isFile()) found.push(path);
      else if (
        entry.isSymbolicLink() &&
        statSync(join(dir, entry.name), { throwIfNoEntry: false })?.isFile()
      )
        found.push(path);
    }
  };
  walk(root, '');
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The value of `hashFiles(...args)` for the files of `workspace`. */
export function hashFiles(workspace: string, args: readonly string[]): string {
  const root = resolve(workspace);
  const patterns = parsePatterns(args, root);
  if (!patterns.some((p) => !p.negated)) return '';
  const outer = createHash('sha256');
  let count = 0;
  for (const file of filesUnder(root)) {
    let included = false;
    for (const pattern of patterns) if (pattern.regex.test(file)) included = !pattern.negated;
    if (!included) continue;
    outer.update(
      createHash('sha256')
        .update(readFileSync(join(root, file)))
        .digest(),
    );
    count++;
  }
  return count === 0 ? '' : outer.digest('hex');
}
