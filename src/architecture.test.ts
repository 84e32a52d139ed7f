/**
 * Keeps the layering of DESIGN.md honest: `http`/`mcp` → `domain` → `db`/`git` → `lib`, and only
 * `src/git/` spawns processes. Walks every import of every source file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** A module's extension: TypeScript, the JavaScript preload, or the preload's declarations. */
const EXTENSION = /(\.d)?\.[jt]s$/;

/** Top-level area of a path inside src/ (`domain/repos/x.ts` → `domain`). */
function areaOf(path: string): string {
  const rel = relative(SRC, path);
  const [first] = rel.split('/');
  return first?.replace(EXTENSION, '') ?? '';
}

/** Which areas each area may import from (itself always allowed). */
const ALLOWED: Record<string, readonly string[]> = {
  lib: [],
  config: ['lib'],
  db: ['lib', 'config', 'domain/errors'],
  git: ['lib', 'config', 'domain/errors'],
  domain: ['lib', 'config', 'db', 'git'],
  gen: [],
  http: ['lib', 'config', 'domain', 'git', 'gen', 'app', 'version'],
  // The view loaders take a ConvertContext, not a request: MCP shares them with REST, so both
  // load the same facts into the same records instead of each keeping its own copy.
  mcp: [
    'lib',
    'config',
    'domain',
    'http/convert',
    'http/api/v1/schemas',
    'http/api/v1/repo-views',
    'http/api/v1/pull-views',
    'http/api/v1/review-comment-views',
    'app',
    'version',
  ],
  app: ['lib', 'config', 'db', 'domain', 'git', 'version'],
  // The command line: an edge like http, which also applies migrations on its own (`migrate`),
  // and hands `runner …` to the built-in runner's own command line.
  cli: ['lib', 'config', 'db', 'domain', 'git', 'http', 'mcp', 'app', 'version', 'start-up', 'runner'],
  main: ['cli', 'start-up'],
  // The built-in runner is a client of the runner protocol, like act_runner: it speaks to any
  // server only through the generated protos, never through Kiln's own server code.
  runner: ['gen'],
  version: [],
  // Preloaded before anything else (JavaScript, so that it needs no type stripping).
  'start-up': [],
  'architecture.test': [],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'gen' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT =
  /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? '');
}

function permitted(fromArea: string, target: string): boolean {
  const rel = relative(SRC, target).replace(EXTENSION, '');
  const targetArea = areaOf(target);
  if (targetArea === fromArea) return true;
  return (ALLOWED[fromArea] ?? []).some(
    (allowed) => rel === allowed || rel.startsWith(`${allowed}/`),
  );
}

const files = sourceFiles(SRC);

describe('architecture', () => {
  it('knows every top-level area', () => {
    const unknown = [...new Set(files.map(areaOf))].filter((area) => !(area in ALLOWED));
    expect(unknown).toEqual([]);
  });

  it('imports only inward', () => {
    const violations: string[] = [];
    for (const file of files) {
      if (file.endsWith('.test.ts')) continue;
      const from = areaOf(file);
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) continue;
        const target = resolve(dirname(file), specifier);
        if (!target.startsWith(SRC)) continue;
        if (!permitted(from, target)) {
          violations.push(`${relative(SRC, file)} → ${relative(SRC, target)}`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  // src/runner/ runs the steps of CI jobs, which are processes by nature.
  it('spawns processes only from src/git/ and src/runner/', () => {
    const spawners = files
      .filter((file) => !file.endsWith('.test.ts') && !['git', 'runner'].includes(areaOf(file)))
      .filter((file) =>
        importsOf(file).some((s) => s === 'node:child_process' || s === 'child_process'),
      )
      .map((file) => relative(SRC, file));
    expect(spawners).toEqual([]);
  });

  it('keeps the runner apart from the server', () => {
    const server = ['domain', 'http', 'db', 'git', 'config', 'lib', 'mcp', 'app'];
    const reaches = files
      .filter((file) => areaOf(file) === 'runner')
      .flatMap((file) =>
        importsOf(file)
          .filter((s) => s.startsWith('.'))
          .map((s) => resolve(dirname(file), s))
          .filter((target) => target.startsWith(SRC) && server.includes(areaOf(target)))
          .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`),
      );
    expect(reaches).toEqual([]);
    expect(permitted('runner', join(SRC, 'domain/errors.ts'))).toBe(false);
    expect(permitted('runner', join(SRC, 'gen/runner/v1/services_pb.js'))).toBe(true);
  });

  it('flags a forbidden edge (self-check)', () => {
    expect(permitted('domain', join(SRC, 'http/server.ts'))).toBe(false);
    expect(permitted('lib', join(SRC, 'domain/errors.ts'))).toBe(false);
    expect(permitted('db', join(SRC, 'domain/errors.ts'))).toBe(true);
    expect(permitted('http', join(SRC, 'domain/users/user.service.ts'))).toBe(true);
  });
});
