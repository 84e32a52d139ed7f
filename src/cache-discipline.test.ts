/**
 * Keeps every cache where docs/architecture.md ("Caches") says it is: built by the composition
 * root (src/caches.ts, or a service it builds) or, for a cache of a pure function, declared
 * through lib/pure-caches.ts. A module that keeps a growing map of its own at its top level
 * holds a cache nobody owns, bounds or reports; this test names it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Containers that grow as they are used; a WeakMap is bounded by the lives of its keys. */
const GROWING =
  /^(?:export )?(?:const|let) (\w+)[^=\n]*= new (Map|Set|BoundedMap|SizedLru|StampedMemo|RecentReadings)\b/gm;

/**
 * Module-level containers that are not caches of answers, each with its reason.
 */
const NOT_CACHES: Record<string, string> = {
  'src/runner/engine/output-pipes.ts idle': 'FIFOs free for the next step: a pool of files',
  'src/git/spawner-process.ts running': 'the git processes running: a process table',
};

/** The arguments of the constructor call starting at `at` (after the class name). */
function constructorArguments(text: string, at: number): string {
  let index = at;
  if (text[index] === '<') {
    for (let depth = 0; index < text.length; index++) {
      if (text[index] === '<') depth++;
      else if (text[index] === '>' && --depth === 0) break;
    }
    index++;
  }
  if (text[index] !== '(') return '';
  let depth = 0;
  for (let end = index; end < text.length; end++) {
    if (text[end] === '(') depth++;
    else if (text[end] === ')' && --depth === 0) return text.slice(index + 1, end).trim();
  }
  return '';
}

/**
 * The top-level growing containers of a module's text: a Map or Set built empty, or any of the
 * bounded primitives (`new Map()`, `new BoundedMap(500)`); a Map or Set built from entries is a
 * constant table.
 */
function topLevelContainers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(GROWING)) {
    const args = constructorArguments(text, (match.index ?? 0) + match[0].length);
    // A Map or Set given entries is a table; the bounded primitives are caches however built.
    if (args === '' || !['Map', 'Set'].includes(match[2] ?? '')) found.push(match[1] ?? '');
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === 'src/gen' ? [] : sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.(test|fixture)\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('cache discipline', () => {
  it('finds a module-level map built empty or with a bound, not a constant table', () => {
    expect(topLevelContainers('const memo = new Map<string, RegExp>();\n')).toEqual(['memo']);
    expect(
      topLevelContainers('export const kept = new BoundedMap<string, number>(LIMIT);\n'),
    ).toEqual(['kept']);
    expect(topLevelContainers("const KINDS = new Set(['a', 'b']);\n")).toEqual([]);
    expect(topLevelContainers('const NAMES = new Set(LIST);\n')).toEqual([]);
    expect(topLevelContainers('  readonly #rows = new Map<string, number>();\n')).toEqual([]);
    expect(topLevelContainers('const parses = new WeakMap<Buffer, string>();\n')).toEqual([]);
  });

  it('keeps no cache at the top level of a module', () => {
    const strays = sourceFiles('src').flatMap((file) =>
      topLevelContainers(readFileSync(join(ROOT, file), 'utf8'))
        .map((name) => `${file} ${name}`)
        .filter((place) => !(place in NOT_CACHES)),
    );
    expect(strays).toEqual([]);
  });
});
