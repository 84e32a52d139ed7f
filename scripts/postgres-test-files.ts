/**
 * Prints the test files whose outcome can depend on the database engine: the ones the suite runs
 * a second time on PostgreSQL (.ci/run). The rule, derived rather than listed by hand:
 *
 *   a test file runs on PostgreSQL when it, or any module it imports (relative imports, followed
 *   to the end), names KILN_TEST_DATABASE_URL — the one door through which a test reaches
 *   PostgreSQL (test/support/database.ts and the few suites that read it themselves).
 *
 * A file that cannot reach that name opens SQLite or no database at all on either run, so running
 * it twice would test the same thing twice. Naming the variable in a comment counts too: the rule
 * errs towards running a file twice. Nothing under src/ or bin/ may read the variable (the suite
 * test/suite/postgres-files.test.ts checks it), so the engine is never chosen out of sight.
 *
 * Usage: node scripts/postgres-test-files.ts [--skipped]  (the files left out instead)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The name whose presence in a file's import closure puts it on the PostgreSQL run. */
export const ENGINE_DOOR = 'KILN_TEST_DATABASE_URL';

const root = resolve(import.meta.dirname, '..');
const RELATIVE_IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** Test files of the suite, relative to the repository and sorted. */
export function testFiles(): string[] {
  return readdirSync(join(root, 'test'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

/** Relative imports of a file, resolved, read once per run. */
function importsOf(file: string, cache: Map<string, { door: boolean; imports: string[] }>) {
  let entry = cache.get(file);
  if (entry === undefined) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const imports = [...text.matchAll(RELATIVE_IMPORT)].map((m) =>
      resolve(dirname(file), m[1] as string),
    );
    entry = { door: text.includes(ENGINE_DOOR), imports };
    cache.set(file, entry);
  }
  return entry;
}

/** Splits `files` by whether their import closure names the engine door. */
export function splitByEngine(files: readonly string[]): { both: string[]; sqliteOnly: string[] } {
  const cache = new Map<string, { door: boolean; imports: string[] }>();
  // Only "reaches" is remembered across files: "does not" found inside a cycle may be partial.
  const reaches = new Set<string>();
  const reachesDoor = (start: string): boolean => {
    const seen = new Set<string>([start]);
    const queue = [start];
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      const entry = importsOf(file, cache);
      if (entry.door || reaches.has(file)) return true;
      for (const next of entry.imports) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return false;
  };
  const both: string[] = [];
  const sqliteOnly: string[] = [];
  for (const file of files) {
    const path = join(root, file);
    if (reachesDoor(path)) {
      reaches.add(path);
      both.push(file);
    } else {
      sqliteOnly.push(file);
    }
  }
  return { both, sqliteOnly };
}

if (import.meta.main) {
  const { both, sqliteOnly } = splitByEngine(testFiles());
  process.stdout.write(`${(process.argv.includes('--skipped') ? sqliteOnly : both).join('\n')}\n`);
}
