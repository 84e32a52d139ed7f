/**
 * Keeps the layering of DESIGN.md and docs/architecture.md honest: `http`/`mcp` → `present` →
 * `domain` → `db`/`git` → `lib`, the packages that belong to one layer stay there, and only
 * `src/git/`, `src/runner/` and `bin/` spawn processes. Every import rule is a pure function of one
 * import (the importing file and what it names), checked below against a forbidden example and
 * then over every import of every source file; the two rules on stores read file contents alike,
 * and type assertions are held under a ceiling per 1,000 lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { castDensity, castLines, MAX_CASTS_PER_1000_LINES } from '../scripts/cast-density.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A module's extension: TypeScript, JavaScript, or a declaration file. */
const EXTENSION = /(\.d)?\.[jt]s$/;

/** Top-level area of a path inside src/ (`src/domain/repos/x.ts` → `domain`); '' outside src/. */
function areaOf(path: string): string {
  const [top, first] = path.split('/');
  return top === 'src' && first ? first.replace(EXTENSION, '') : '';
}

/** Path inside src/ without its extension (`src/git/refs.ts` → `git/refs`). */
function inSrc(path: string): string {
  return path.slice('src/'.length).replace(EXTENSION, '');
}

/** Whether `path` (inside src/, no extension) is `prefix` or lies under it. */
function within(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Which areas each area may import from (itself always allowed). */
const ALLOWED: Record<string, readonly string[]> = {
  lib: [],
  config: ['lib'],
  db: ['lib', 'config', 'domain/errors'],
  git: ['lib', 'config', 'domain/errors'],
  domain: ['lib', 'config', 'db', 'git', 'outbound', 'hashing'],
  // The one way the server reaches other servers, with the one guard against request forgery.
  outbound: ['lib'],
  // Password hashing on worker threads of their own, off the event loop.
  hashing: ['lib'],
  gen: [],
  // Gitea's wire shapes, the pure converters to them and the loaders that gather their facts:
  // below both edges, so that REST and MCP answer in the same records from the same code.
  present: ['lib', 'config', 'domain', 'git'],
  http: ['lib', 'config', 'domain', 'git', 'gen', 'present', 'app', 'version'],
  mcp: ['lib', 'config', 'domain', 'present', 'version'],
  // Git over SSH: an edge beside http, which streams git like smart HTTP does.
  ssh: ['lib', 'config', 'domain', 'git', 'version'],
  app: ['lib', 'config', 'db', 'domain', 'git', 'notify', 'storage', 'version', 'wiring', 'caches'],
  // The composition root's areas: each builds one area's services and subscribes its reactions
  // to the domain's events; only app.ts calls them.
  wiring: ['lib', 'config', 'db', 'domain', 'git', 'notify', 'storage', 'version'],
  // The process's caches, built for the composition root and handed to their owners.
  caches: ['lib', 'git'],
  // Bytes kept under the data directory (CI logs, cache archives) behind ports the domain
  // defines: the
  // composition root hands them to the domain, which never builds one.
  storage: ['lib', 'config', 'domain/errors'],
  // Turns domain events into outgoing notifications (webhooks) in the presenters' wire shapes;
  // the composition root subscribes it, so the domain never sees those shapes.
  notify: ['lib', 'config', 'domain', 'present'],
  // The command line: an edge like http, which also applies migrations on its own (`migrate`),
  // and hands `runner …` to the built-in runner's own command line.
  cli: [
    'lib',
    'config',
    'db',
    'domain',
    'git',
    'http',
    'mcp',
    'ssh',
    'app',
    'version',
    'start-up',
    'runner',
  ],
  main: ['cli', 'start-up'],
  // The built-in runner is a client of the runner protocol, like act_runner: it speaks to any
  // server only through the generated protos, never through Kiln's own server code.
  runner: ['gen'],
  version: [],
  // Preloaded before anything else (JavaScript, so that it needs no type stripping); the old
  // name of the preload only forwards to it.
  'start-up': [],
  'compile-cache': ['start-up'],
  'architecture.test': [],
};

/**
 * Modules of src/git/ that start nothing and touch no disk: parsers of git's object formats and
 * checks of names. Presenters may use these, and only these, of the git layer.
 */
const PURE_GIT = [
  'git/ref-names',
  'git/objects/commit',
  'git/objects/headers',
  'git/objects/object-type',
  'git/objects/signature',
  'git/objects/tag',
  'git/objects/tree',
];

/**
 * Edges that take a small typed set of services, never the whole application object, and never
 * the git layer's pools: `server.ts` and `app.ts` hand them what they use.
 */
const NARROW_EDGES = [
  'http/git',
  'http/actions',
  'http/federation',
  'http/auth',
  'http/plugins',
  'http/protect',
  'http/errors',
];

/** Modules that start processes. */
const SPAWNING = ['node:child_process', 'child_process', 'node:cluster', 'cluster'];

/** Areas where the web framework must not appear: they know nothing of requests. */
const NO_FASTIFY = ['domain', 'db', 'git', 'lib', 'config', 'present'];

/** Node's modules that reach disks, networks and threads: infrastructure's, never the domain's. */
const IO_MODULES = [
  ...['fs', 'fs/promises', 'http', 'https', 'http2', 'dns', 'dns/promises', 'net', 'tls'],
  ...['dgram', 'worker_threads'],
].flatMap((name) => [name, `node:${name}`]);

/** Wire formats of the edges: the domain speaks in its own records. */
const WIRE_PACKAGES = ['@connectrpc', '@bufbuild', 'zod', '@sinclair/typebox'];

/** The git layer's process pools: handed to the edges that stream, never imported by pages. */
const GIT_POOLS = ['git/cat-file-pool', 'git/ref-update-pool', 'git/git-context'];

/** The aggregate a path of src/domain/ belongs to: its first folder (`src/domain/orgs/x.ts` → `orgs`). */
function aggregateOf(path: string): string | undefined {
  return /^src\/domain\/([^/]+)\//.exec(path)?.[1];
}

/** The npm package a bare specifier names (`@fastify/cookie/x` → `@fastify/cookie`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/**
 * One rule: true when an import breaks it. `file` is the importing file and `target` the module it
 * names, relative to the repository root (`src/db/x.ts`) when the specifier is relative and the
 * specifier itself (`fastify`, `node:fs`) otherwise.
 */
type Rule = (file: string, target: string) => boolean;

const RULES: Record<string, Rule> = {
  'imports only inward': (file, target) => {
    const from = areaOf(file);
    if (!from || !target.startsWith('src/') || areaOf(target) === from) return false;
    return !(ALLOWED[from] ?? []).some((allowed) => within(inSrc(target), allowed));
  },
  'no fastify below the edges': (file, target) =>
    NO_FASTIFY.includes(areaOf(file)) &&
    (packageOf(target) === 'fastify' || target.startsWith('@fastify/')),
  'pg only in db': (file, target) => packageOf(target) === 'pg' && areaOf(file) !== 'db',
  'kysely only in db and domain': (file, target) =>
    packageOf(target) === 'kysely' && !['db', 'domain'].includes(areaOf(file)),
  // The REST routes take the few services and settings they use, handed out by the composition
  // root; the rest of http still receives the whole application while it moves the same way.
  'REST routes take their dependencies, not the app': (file, target) =>
    within(inSrc(file), 'http/api') && target === 'src/app.ts',
  // A route throws a domain error and the one REST error handler writes the answer.
  'REST routes build no error bodies': (file, target) =>
    within(inSrc(file), 'http/api') &&
    file.endsWith('.routes.ts') &&
    target === 'src/http/errors/api-errors.ts',
  'mcp not through the REST routes': (file, target) =>
    areaOf(file) === 'mcp' && target.startsWith('src/http/api/'),
  'presenters start no git': (file, target) =>
    areaOf(file) === 'present' &&
    target.startsWith('src/git/') &&
    !PURE_GIT.includes(inSrc(target)),
  'narrow edges take no app': (file, target) =>
    NARROW_EDGES.some((edge) => within(inSrc(file), edge)) &&
    target.startsWith('src/') &&
    ['app', ...GIT_POOLS].some((whole) => within(inSrc(target), whole)),
  // Pages are handed the services and settings they use, never the whole application.
  'pages take only what they use': (file, target) =>
    within(inSrc(file), 'http/web') && target === 'src/app.ts',
  // The domain decides; what reaches a disk, a socket or a thread is src/git, src/db,
  // src/storage, src/outbound, src/hashing or lib, so a use case reads the same whatever
  // stores its bytes.
  'the domain does no I/O of its own': (file, target) =>
    areaOf(file) === 'domain' && (IO_MODULES.includes(target) || target === 'src/lib/node-http.ts'),
  'no wire formats in the domain': (file, target) =>
    areaOf(file) === 'domain' &&
    WIRE_PACKAGES.some((name) => target === name || target.startsWith(`${name}/`)),
  // A page or a REST route asks a service; the queries and processes behind it are not its own.
  'pages and API routes take no stores or pools': (file, target) =>
    (within(inSrc(file), 'http/web') || within(inSrc(file), 'http/api')) &&
    target.startsWith('src/') &&
    (target.endsWith('.store.ts') || GIT_POOLS.some((pool) => within(inSrc(target), pool))),
  // server.ts and its siblings are handed Kiln's parts; App stays the composition root's.
  'top-level http modules take no app': (file, target) =>
    /^src\/http\/[^/]+\.ts$/.test(file) && target === 'src/app.ts',
  // An aggregate reaches another through that one's services, or through a port it declares
  // and the composition root fills: another's queries, and the rows they return, stay its own.
  "no other aggregate's store": (file, target) => {
    const from = aggregateOf(file);
    const to = aggregateOf(target);
    return (
      from !== undefined && to !== undefined && from !== to && /(\.store|-stores)\.ts$/.test(target)
    );
  },
  'runner alone': (file, target) =>
    areaOf(file) === 'runner' &&
    target.startsWith('src/') &&
    !['runner', 'gen'].includes(areaOf(target)),
  // src/runner/ runs the steps of CI jobs, which are processes by nature; bin/ is the launcher.
  'spawns only from git, runner and bin': (file, target) =>
    SPAWNING.includes(target) && !['git', 'runner'].includes(areaOf(file)) && !within(file, 'bin'),
  // An ES import of node:http reads its lazy WebSocket exports and so loads Node's undici (about
  // 9 MB resident from start): the module comes through lib/node-http.ts, which does not.
  'node:http through lib/node-http': (file, target) =>
    ['node:http', 'http'].includes(target) && file !== 'src/lib/node-http.ts',
};

/** One source file and the specifiers it imports, as written. */
interface Module {
  readonly file: string;
  readonly imports: readonly string[];
}

/** What an import names: a repository path for a relative specifier, else the specifier. */
function targetOf(file: string, specifier: string): string {
  return specifier.startsWith('.') ? posix.join(posix.dirname(file), specifier) : specifier;
}

/** Every broken rule, as `file → target: rule`. Pure: the tree is read elsewhere. */
function violations(modules: readonly Module[]): string[] {
  return modules.flatMap(({ file, imports }) =>
    imports.flatMap((specifier) => {
      const target = targetOf(file, specifier);
      return Object.entries(RULES)
        .filter(([, broken]) => broken(file, target))
        .map(([rule]) => `${file} → ${target}: ${rule}`);
    }),
  );
}

/** Source files under `dir`, repository-relative; the generated protos are not ours to check. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === 'src/gen' ? [] : sourceFiles(path);
    return EXTENSION.test(entry.name) ? [path] : [];
  });
}

/** Static and dynamic imports, re-exports, side-effect imports and `require` calls. */
const IMPORT =
  /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * Whether source text holds an `import()` whose specifier is computed rather than a string
 * literal: such an import escapes every rule here. Comments are set aside first.
 */
function computesImport(text: string): boolean {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  return /\bimport\s*\(\s*[^'"\s]/.test(code);
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
}

// Tests may set up whatever they need (repositories made with git, a database opened directly):
// the rules are about the code Kiln runs.
const files = [...sourceFiles('src'), ...sourceFiles('bin')].filter((f) => !f.includes('.test.'));
const modules = files.map((file) => ({ file, imports: importsOf(file) }));

describe('architecture', () => {
  it('knows every top-level area', () => {
    const unknown = [...new Set(files.map(areaOf))].filter((area) => area && !(area in ALLOWED));
    expect(unknown).toEqual([]);
  });

  it('holds every rule over the source tree', () => {
    expect(violations(modules)).toEqual([]);
  });

  it('imports every module by a name written out, so the rules above see every import', () => {
    expect(
      modules
        .filter(({ file }) => computesImport(readFileSync(join(ROOT, file), 'utf8')))
        .map(({ file }) => file),
    ).toEqual([]);
  });

  it('names every file of src/git/ in its README', () => {
    const readme = readFileSync(join(ROOT, 'src/git/README.md'), 'utf8');
    const unlisted = sourceFiles('src/git')
      .map((file) => file.slice('src/git/'.length))
      .filter((name) => !name.includes('.test.') && !readme.includes(`\`${name}\``));
    expect(unlisted).toEqual([]);
  });

  it('keeps the pure git modules pure: they import only each other and the domain errors', () => {
    const impure = modules
      .filter(({ file }) => PURE_GIT.includes(inSrc(file)))
      .flatMap(({ file, imports }) =>
        imports
          .map((specifier) => targetOf(file, specifier))
          .filter((target) => !PURE_GIT.some((pure) => target === `src/${pure}.ts`))
          .filter((target) => target !== 'src/domain/errors.ts')
          .map((target) => `${file} → ${target}`),
      );
    expect(impure).toEqual([]);
    expect(modules.filter(({ file }) => PURE_GIT.includes(inSrc(file)))).toHaveLength(
      PURE_GIT.length,
    );
  });
});

describe('architecture rules (each fails when broken)', () => {
  const check = (file: string, ...imports: string[]) => violations([{ file, imports }]);

  it('takes node:http through lib/node-http', () => {
    expect(check('src/git/x.ts', 'node:http')).toEqual([
      'src/git/x.ts → node:http: node:http through lib/node-http',
    ]);
    expect(check('src/lib/node-http.ts', 'node:http')).toEqual([]);
    expect(check('src/git/x.ts', 'node:https')).toEqual([]);
  });

  it('keeps disks, sockets and threads out of the domain', () => {
    for (const io of ['node:fs', 'fs/promises', 'node:https', 'node:dns', 'node:net']) {
      expect(check('src/domain/ci/x.ts', io)).toEqual([
        `src/domain/ci/x.ts → ${io}: the domain does no I/O of its own`,
      ]);
    }
    expect(check('src/domain/x.ts', 'node:worker_threads')).toHaveLength(1);
    expect(check('src/domain/x.ts', '../lib/node-http.ts')).toHaveLength(1);
    expect(check('src/domain/x.ts', 'node:crypto', 'node:path')).toEqual([]);
    expect(check('src/outbound/x.ts', 'node:https', 'node:dns')).toEqual([]);
  });

  it("keeps the edges' wire formats out of the domain", () => {
    expect(check('src/domain/x.ts', '@connectrpc/connect')).toEqual([
      'src/domain/x.ts → @connectrpc/connect: no wire formats in the domain',
    ]);
    expect(check('src/domain/x.ts', 'zod')).toHaveLength(1);
    expect(check('src/http/actions/x.ts', '@connectrpc/connect', 'zod')).toEqual([]);
  });

  it('hands pages and REST routes services, not stores or git pools', () => {
    expect(check('src/http/web/pages/x.ts', '../../../domain/repos/repo.store.ts')).toEqual([
      'src/http/web/pages/x.ts → src/domain/repos/repo.store.ts: pages and API routes take no stores or pools',
    ]);
    expect(check('src/http/api/v1/x.ts', '../../../git/cat-file-pool.ts')).toHaveLength(1);
    expect(check('src/http/api/v1/x.ts', '../../../domain/repos/repo.types.ts')).toEqual([]);
  });

  it("keeps each aggregate's store its own", () => {
    expect(check('src/domain/orgs/org.store.ts', '../users/user.store.ts')).toEqual([
      "src/domain/orgs/org.store.ts → src/domain/users/user.store.ts: no other aggregate's store",
    ]);
    expect(check('src/domain/backup/x.service.ts', '../ci/ci-stores.ts')).toHaveLength(1);
    expect(check('src/domain/orgs/org.service.ts', './org.store.ts')).toEqual([]);
    expect(check('src/domain/orgs/org.service.ts', '../users/user.types.ts')).toEqual([]);
    expect(check('src/app.ts', './domain/users/user.store.ts')).toEqual([]);
  });

  it('finds an import whose specifier is computed', () => {
    expect(computesImport('const m = await import(`./' + 'x.ts`);')).toBe(true);
    expect(computesImport('const m = await import(path);')).toBe(true);
    expect(computesImport("const m = await import('./fixed.ts');")).toBe(false);
    expect(computesImport('// loaded with import() on first use\n/** import(x) */')).toBe(false);
  });

  it('builds the server from its parts, not from the app', () => {
    expect(check('src/http/server.ts', '../app.ts')).toEqual([
      'src/http/server.ts → src/app.ts: top-level http modules take no app',
    ]);
  });

  it('imports only inward', () => {
    expect(check('src/domain/x.ts', '../http/server.ts')).toEqual([
      'src/domain/x.ts → src/http/server.ts: imports only inward',
    ]);
    expect(check('src/lib/x.ts', '../domain/errors.ts')).toHaveLength(1);
    expect(check('src/db/x.ts', '../domain/errors.ts')).toEqual([]);
    expect(check('src/http/x.ts', '../domain/users/user.service.ts')).toEqual([]);
  });

  it('keeps fastify out of domain, db, git, lib and config', () => {
    for (const area of NO_FASTIFY) {
      expect(check(`src/${area}/x.ts`, 'fastify')).toEqual([
        `src/${area}/x.ts → fastify: no fastify below the edges`,
      ]);
    }
    expect(check('src/domain/a/x.ts', '@fastify/cookie')).toHaveLength(1);
    expect(check('src/http/x.ts', 'fastify', '@fastify/cookie')).toEqual([]);
    expect(check('src/domain/x.ts', 'fastify-plugin-lookalike')).toEqual([]);
  });

  it('keeps pg in db', () => {
    expect(check('src/domain/x.ts', 'pg')).toEqual(['src/domain/x.ts → pg: pg only in db']);
    expect(check('src/http/x.ts', 'pg/lib/client')).toHaveLength(1);
    expect(check('src/db/database.ts', 'pg')).toEqual([]);
    expect(check('src/domain/x.ts', 'pgx')).toEqual([]);
  });

  it('keeps kysely in db and domain', () => {
    expect(check('src/http/x.ts', 'kysely')).toEqual([
      'src/http/x.ts → kysely: kysely only in db and domain',
    ]);
    expect(check('src/mcp/x.ts', 'kysely/helpers/postgres')).toHaveLength(1);
    expect(check('src/domain/x.ts', 'kysely')).toEqual([]);
    expect(check('src/db/x.ts', 'kysely')).toEqual([]);
  });

  it('keeps mcp out of http/api: both edges share the presenters instead', () => {
    expect(check('src/mcp/x.ts', '../http/api/v1/repos.routes.ts')).toEqual([
      'src/mcp/x.ts → src/http/api/v1/repos.routes.ts: imports only inward',
      'src/mcp/x.ts → src/http/api/v1/repos.routes.ts: mcp not through the REST routes',
    ]);
    expect(check('src/mcp/x.ts', '../http/api/v1/repo-answers.ts')).toHaveLength(2);
    expect(check('src/mcp/x.ts', '../present/repo-views.ts')).toEqual([]);
    expect(check('src/http/api/v1/x.ts', '../../../present/repo.ts')).toEqual([]);
  });

  it('hands the REST routes their dependencies rather than the app', () => {
    expect(check('src/http/api/v1/x.routes.ts', '../../../app.ts')).toEqual([
      'src/http/api/v1/x.routes.ts → src/app.ts: REST routes take their dependencies, not the app',
    ]);
    expect(check('src/mcp/x.ts', '../app.ts')).toEqual([
      'src/mcp/x.ts → src/app.ts: imports only inward',
    ]);
    expect(check('src/http/api/v1/x.routes.ts', '../../../domain/services.ts')).toEqual([]);
  });

  it('leaves error answers to the REST error handler', () => {
    expect(check('src/http/api/v1/x.routes.ts', '../../errors/api-errors.ts')).toEqual([
      'src/http/api/v1/x.routes.ts → src/http/errors/api-errors.ts: REST routes build no error bodies',
    ]);
    expect(check('src/http/api/v1/api.plugin.ts', '../../errors/api-errors.ts')).toEqual([]);
    expect(check('src/http/api/v1/x.routes.ts', '../../../domain/errors.ts')).toEqual([]);
  });

  it('keeps the presenters below the edges', () => {
    expect(check('src/present/x.ts', '../http/api/v1/paging.ts')).toEqual([
      'src/present/x.ts → src/http/api/v1/paging.ts: imports only inward',
    ]);
    expect(check('src/present/x.ts', '../mcp/tool-kit.ts')).toHaveLength(1);
    expect(check('src/present/x.ts', '../domain/repos/repo.types.ts')).toEqual([]);
  });

  it('keeps process code out of presenters', () => {
    expect(check('src/present/x.ts', '../git/read-objects.ts')).toEqual([
      'src/present/x.ts → src/git/read-objects.ts: presenters start no git',
    ]);
    expect(check('src/present/schemas/x.ts', '../../git/objects/write-commit.ts')).toHaveLength(1);
    expect(check('src/present/x.ts', '../git/objects/commit.ts')).toEqual([]);
    expect(check('src/present/x.ts', '../git/ref-names.ts')).toEqual([]);
    expect(check('src/http/api/x.ts', '../../git/read-objects.ts')).toEqual([]);
  });

  it('keeps the narrow edges off the application object and the git pools', () => {
    expect(check('src/http/git/x.ts', '../../app.ts')).toEqual([
      'src/http/git/x.ts → src/app.ts: narrow edges take no app',
    ]);
    expect(check('src/http/plugins/x.ts', '../../git/cat-file-pool.ts')).toHaveLength(1);
    expect(check('src/http/actions/x.ts', '../../git/git-context.ts')).toHaveLength(1);
    expect(check('src/http/git/x.ts', '../../git/transport.ts')).toEqual([]);
    expect(check('src/http/git/x.ts', '../../domain/services.ts')).toEqual([]);
  });

  it('hands the pages what they use, not the application', () => {
    expect(check('src/http/web/pages/x.routes.ts', '../../../app.ts')).toEqual([
      'src/http/web/pages/x.routes.ts → src/app.ts: pages take only what they use',
    ]);
    expect(check('src/http/web/x.ts', '../../app.ts')).toHaveLength(1);
    expect(check('src/http/web/x.ts', '../../domain/services.ts')).toEqual([]);
    expect(check('src/http/api/v1/x.ts', '../../../domain/services.ts')).toEqual([]);
  });

  it('keeps the runner apart from the server', () => {
    expect(check('src/runner/x.ts', '../domain/errors.ts')).toEqual([
      'src/runner/x.ts → src/domain/errors.ts: imports only inward',
      'src/runner/x.ts → src/domain/errors.ts: runner alone',
    ]);
    expect(check('src/runner/engine/x.ts', '../../lib/ids.ts')).toHaveLength(2);
    expect(check('src/runner/x.ts', '../gen/runner/v1/services_pb.js', './task.ts')).toEqual([]);
    expect(check('src/runner/version.ts', '../../package.json')).toEqual([]);
  });

  it('spawns processes only from src/git/, src/runner/ and bin/', () => {
    expect(check('src/domain/x.ts', 'node:child_process')).toEqual([
      'src/domain/x.ts → node:child_process: spawns only from git, runner and bin',
    ]);
    expect(check('src/http/x.ts', 'child_process')).toHaveLength(1);
    expect(check('src/cli/x.ts', 'node:cluster')).toHaveLength(1);
    expect(check('src/git/x.ts', 'node:child_process')).toEqual([]);
    expect(check('src/runner/engine/x.ts', 'node:child_process')).toEqual([]);
    expect(check('bin/kiln.js', 'node:child_process')).toEqual([]);
  });

  it('reads every form of import', () => {
    const text = `import a from 'a'; export { b } from 'b'; import('c'); import 'd'; require('e');`;
    expect([...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4])).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
    ]);
  });
});

/** Stores own the queries: in `src/domain/`, a query is written only in a `*.store.ts`. */
const QUERY = /\.(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql`|\bsql</;

function queriesOutsideStores(sources: ReadonlyArray<{ file: string; text: string }>): string[] {
  return sources
    .filter(({ file }) => areaOf(file) === 'domain' && !file.endsWith('.store.ts'))
    .filter(({ text }) => QUERY.test(text))
    .map(({ file }) => file);
}

/**
 * Services receive their stores: a store is built only where Kiln is put together — the
 * composition root, federation's own (`Federation.fromConfig`), and the commands that open a
 * database of their own.
 */
const NEW_STORE = /\bnew [A-Z]\w*Store\(/;
const COMPOSITION_ROOTS = ['app', 'wiring', 'domain/federation/federation', 'cli'];
/**
 * Stores may build stores over the connection or transaction they hold: a bundle of one
 * aggregate's stores (`ci-stores.ts`) opens a transaction and hands out stores bound to it.
 */
const STORE_FILE = /(\.store|-stores)\.ts$/;

function storesBuiltOutsideRoots(sources: ReadonlyArray<{ file: string; text: string }>): string[] {
  return sources
    .filter(({ file }) => file.startsWith('src/'))
    .filter(({ file }) => !COMPOSITION_ROOTS.some((root) => within(inSrc(file), root)))
    .filter(({ file }) => !STORE_FILE.test(file))
    .filter(({ text }) => NEW_STORE.test(text))
    .map(({ file }) => file);
}

/** A subscription to a domain event: `subscribe` with the event's name (`events.ts`). */
const SUBSCRIBES = /\.subscribe\(\s*['"]/;

/**
 * Every reaction to a domain event is subscribed by a module of `src/wiring/`, so one folder
 * lists who hears what, in the order the composition root calls them. Comments are set aside.
 */
function subscribersOutsideWiring(sources: ReadonlyArray<{ file: string; text: string }>) {
  return sources
    .filter(({ file }) => file.startsWith('src/') && areaOf(file) !== 'wiring')
    .filter(({ text }) => SUBSCRIBES.test(text.replace(/\/\*[\s\S]*?\*\//g, '')))
    .map(({ file }) => file);
}

describe('domain events', () => {
  it('are subscribed to only by the wiring modules', () => {
    const sources = files.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
    expect(subscribersOutsideWiring(sources)).toEqual([]);
    const subscribe = "events.subscribe('push', (push) => announce(push));";
    expect(subscribersOutsideWiring([{ file: 'src/domain/a/a.ts', text: subscribe }])).toEqual([
      'src/domain/a/a.ts',
    ]);
    expect(subscribersOutsideWiring([{ file: 'src/wiring/a.ts', text: subscribe }])).toEqual([]);
    expect(
      subscribersOutsideWiring([{ file: 'src/domain/events.ts', text: `/** ${subscribe} */` }]),
    ).toEqual([]);
  });

  it("are wired by the composition root's own modules, which no edge imports", () => {
    const check = (file: string, ...imports: string[]) => violations([{ file, imports }]);
    expect(check('src/http/server.ts', '../wiring/ci.ts')).toEqual([
      'src/http/server.ts → src/wiring/ci.ts: imports only inward',
    ]);
    expect(check('src/domain/x.ts', '../wiring/ci.ts')).toHaveLength(1);
    expect(check('src/app.ts', './wiring/ci.ts')).toEqual([]);
    expect(check('src/wiring/ci.ts', '../notify/webhook-notifier.ts')).toEqual([]);
  });
});

describe('domain queries', () => {
  it('are written only in stores', () => {
    const sources = files.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
    expect(queriesOutsideStores(sources)).toEqual([]);
  });

  it('run on stores built only in composition roots', () => {
    const sources = files.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
    expect(storesBuiltOutsideRoots(sources)).toEqual([]);
    const build = 'this.store = new RepoStore(db);';
    expect(storesBuiltOutsideRoots([{ file: 'src/domain/a/a.service.ts', text: build }])).toEqual([
      'src/domain/a/a.service.ts',
    ]);
    expect(storesBuiltOutsideRoots([{ file: 'src/app.ts', text: build }])).toEqual([]);
    expect(storesBuiltOutsideRoots([{ file: 'src/cli/backup.ts', text: build }])).toEqual([]);
  });

  it('fail the rule anywhere else in the domain', () => {
    const query = "await db.selectFrom('users').selectAll().execute();";
    expect(queriesOutsideStores([{ file: 'src/domain/a/a.service.ts', text: query }])).toEqual([
      'src/domain/a/a.service.ts',
    ]);
    expect(queriesOutsideStores([{ file: 'src/domain/a/b.ts', text: 'sql`select 1`' }])).toEqual([
      'src/domain/a/b.ts',
    ]);
    expect(queriesOutsideStores([{ file: 'src/domain/a/a.store.ts', text: query }])).toEqual([]);
    expect(queriesOutsideStores([{ file: 'src/db/a.ts', text: query }])).toEqual([]);
  });
});

// An assertion (`x as T`) is a claim the compiler takes on trust: values from outside are parsed
// or narrowed instead, so the few left are where a library's types fall short.
describe('type assertions', () => {
  it(`stay at most ${MAX_CASTS_PER_1000_LINES} per 1,000 lines of src (tests and gen/ aside)`, () => {
    const { casts, lines, perThousand } = castDensity(ROOT);
    const listed = `${casts.length} in ${lines} lines; node scripts/cast-density.ts --list`;
    expect(perThousand, listed).toBeLessThanOrEqual(MAX_CASTS_PER_1000_LINES);
  });

  it('are counted from the syntax tree, `as const` aside', () => {
    const text = [
      'const a = b as string;',
      "const c = ['x'] as const;",
      '// d as T in a comment',
      'const e = <T>f;',
      "const g = 'h as T';",
      'const i = j as unknown as K;',
    ].join('\n');
    expect(castLines(text)).toEqual([1, 4, 6, 6]);
  });
});
