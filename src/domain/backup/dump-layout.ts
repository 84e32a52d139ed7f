import { SERVE_LOCK_FILE } from '../../db/serve-lock.ts';
import { Invalid } from '../errors.ts';

/**
 * The layout of a dump archive (a tar file), shared by the writer and the reader:
 *
 *   kiln-dump/manifest.json                  format, version, engine, migrations (first entry)
 *   kiln-dump/database/<NNN>-<table>.jsonl   one JSON object per row, tables in insertion order
 *   kiln-dump/database/facts.json            row counts and sequence values (after the tables)
 *   kiln-dump/repositories/<owner>/<name>.git/…   each repository, `packed-refs` first
 *   kiln-dump/files/…                        every other file of the data directory
 */

export const DUMP_FORMAT = 1;
export const ROOT = 'kiln-dump';
export const MANIFEST = `${ROOT}/manifest.json`;
export const DATABASE = `${ROOT}/database`;
export const DATABASE_FACTS = `${DATABASE}/facts.json`;
export const REPOSITORIES = `${ROOT}/repositories`;
export const FILES = `${ROOT}/files`;

export type DumpManifest = {
  readonly format: number;
  readonly kilnVersion: string;
  readonly createdAt: string;
  readonly engine: 'sqlite' | 'postgres';
  /** The schema's migrations when the dump was taken; a restore rebuilds exactly these. */
  readonly migrations: readonly string[];
};

export type DatabaseFacts = {
  readonly tables: readonly { readonly name: string; readonly rows: number }[];
  readonly sequences: Readonly<Record<string, number>>;
};

/** The archive entry of table number `index`. */
export function tableEntry(index: number, table: string): string {
  return `${DATABASE}/${String(index).padStart(3, '0')}-${table}.jsonl`;
}

const TABLE_ENTRY = /^kiln-dump\/database\/\d{3}-([a-z0-9_]+)\.jsonl$/;

/** The table an archive entry holds, if it is a table entry. */
export function tableOfEntry(entry: string): string | undefined {
  return TABLE_ENTRY.exec(entry)?.[1];
}

const SAFE_SEGMENT = /^[A-Za-z0-9._+-]+$/;

/**
 * The path under `prefix` that an entry names, checked segment by segment: an archive is read
 * from a file an operator was handed, so `..`, absolute paths and odd names are refused rather
 * than written outside the data directory.
 */
export function entryPathUnder(entry: string, prefix: string): string | undefined {
  if (!entry.startsWith(`${prefix}/`)) return undefined;
  const relative = entry.slice(prefix.length + 1);
  const segments = relative.split('/');
  for (const segment of segments) {
    if (!SAFE_SEGMENT.test(segment) || segment === '.' || segment === '..') {
      throw new Invalid(`the dump holds an unsafe path: ${JSON.stringify(entry)}`);
    }
  }
  return relative;
}

/** Files at the top of the data directory that belong to a running instance, not to its data. */
const INSTANCE_FILES = new Set([
  'kiln.db',
  'kiln.db-wal',
  'kiln.db-shm',
  'kiln.db-journal',
  SERVE_LOCK_FILE,
]);

/**
 * Whether a file of the data directory (`relative`, `/`-separated) travels in a dump's `files/`:
 * not the database and its journals (the dump has the rows), not the serve lock (`kiln.pid`, it
 * names a process of the old host), not lock files, sockets or hidden files, and nothing under
 * `repositories/` (repositories travel as data only). A restore writes only these, too.
 */
export function isCarriedFile(relative: string): boolean {
  const segments = relative.split('/');
  if (segments[0] === 'repositories') return false;
  if (segments.some((segment) => segment.startsWith('.') || segment.endsWith('.lock')))
    return false;
  return !(segments.length === 1 && INSTANCE_FILES.has(segments[0]!));
}

/** Parses and checks a manifest. */
export function parseManifest(text: string, known: readonly string[]): DumpManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Invalid('the dump manifest is not JSON');
  }
  const manifest = value as Partial<DumpManifest>;
  if (manifest.format !== DUMP_FORMAT) {
    throw new Invalid(
      `the dump has format ${String(manifest.format)}; this Kiln reads ${DUMP_FORMAT}`,
    );
  }
  if (manifest.engine !== 'sqlite' && manifest.engine !== 'postgres') {
    throw new Invalid('the dump manifest names no database engine');
  }
  const migrations = manifest.migrations;
  if (!Array.isArray(migrations) || !migrations.every((m) => typeof m === 'string')) {
    throw new Invalid('the dump manifest lists no migrations');
  }
  const unknown = migrations.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new Invalid(
      `the dump was made by a newer Kiln (migration ${unknown.join(', ')} is unknown here): restore it with that version or a newer one`,
    );
  }
  return manifest as DumpManifest;
}
