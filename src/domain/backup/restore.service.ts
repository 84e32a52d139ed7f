import path from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import {
  type Database,
  knownMigrations,
  migrate,
  migrateTo,
  openDatabase,
} from '../../db/database.ts';
import { hasAnyTable } from '../../db/schema-facts.ts';
import { type Row, writeSnapshot } from '../../db/table-dump.ts';
import { RepositoryRestorer, type SkippedPath } from '../../git/repository-restore.ts';
import { clashOf } from '../../git/restorable-files.ts';
import { isEmptyDirectory, pathExists, writeNewPrivateFile } from '../../lib/new-files.ts';
import { tightenDataDir } from '../../lib/private-modes.ts';
import type { Chunks } from '../../lib/tar-format.ts';
import { type ReadEntry, readTar } from '../../lib/tar-reader.ts';
import { Conflict, Invalid } from '../errors.ts';
import {
  DATABASE_FACTS,
  type DatabaseFacts,
  type DumpManifest,
  entryPathUnder,
  FILES,
  isCarriedFile,
  MANIFEST,
  parseManifest,
  REPOSITORIES,
  tableOfEntry,
} from './dump-layout.ts';

export type RestoreTarget = {
  /** A `postgres://` URL, or nothing for SQLite in the data directory. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
};

export type RestoreSummary = {
  readonly manifest: DumpManifest;
  readonly rows: number;
  readonly repositories: number;
  readonly files: number;
  /** What the archive held that was not restored: the first paths, and how many in all. */
  readonly skipped: { readonly paths: readonly SkippedPath[]; readonly count: number };
};

type Entry = ReadEntry;

/** A restore writes only into a new instance: it never merges into, or replaces, a live one. */
async function requireEmptyTarget(target: RestoreTarget, database: Database): Promise<void> {
  if (await hasAnyTable(database)) {
    throw new Conflict('the database is not empty: restore into a new, empty database');
  }
  const repositories = path.join(target.dataDir, 'repositories');
  if (!(await isEmptyDirectory(repositories))) {
    throw new Conflict(`${repositories} is not empty: restore into a new, empty data directory`);
  }
}

/** Rows of a table entry, one JSON object a line. */
async function* parseRows(content: AsyncIterable<Buffer>, table: string): AsyncGenerator<Row> {
  const lines = createInterface({
    input: Readable.from(content),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let number = 0;
  for await (const line of lines) {
    number += 1;
    if (line.length === 0) continue;
    try {
      yield JSON.parse(line) as Row;
    } catch {
      throw new Invalid(`the dump's table ${table} has a damaged row at line ${number}`);
    }
  }
}

/** Reads the entries of the archive one at a time: the files only, or every entry. */
class EntryReader {
  readonly #entries: AsyncIterator<Entry>;

  constructor(source: Chunks) {
    this.#entries = readTar(source);
  }

  async next(): Promise<Entry | undefined> {
    for (;;) {
      const next = await this.nextAny();
      if (next === undefined || next.type === 'file') return next;
    }
  }

  async nextAny(): Promise<Entry | undefined> {
    const next = await this.#entries.next();
    return next.done ? undefined : next.value;
  }
}

async function restoreDatabase(
  database: Database,
  reader: EntryReader,
  manifest: DumpManifest,
): Promise<{ rows: number; next: Entry | undefined }> {
  const last = manifest.migrations.at(-1);
  if (last) await migrateTo(database, last);
  let current = await reader.next();
  async function* tables() {
    for (;;) {
      const table = current ? tableOfEntry(current.path) : undefined;
      if (!current || !table) return;
      yield { name: table, rows: parseRows(current.content, table) };
      current = await reader.next();
    }
  }
  let rows = 0;
  await writeSnapshot(database, tables(), async (written) => {
    if (current?.path !== DATABASE_FACTS) throw new Invalid('the dump has no database facts');
    const facts = JSON.parse((await buffer(current.content)).toString('utf8')) as DatabaseFacts;
    for (const table of facts.tables) {
      if ((written[table.name] ?? 0) !== table.rows) {
        throw new Invalid(
          `the dump's table ${table.name} should hold ${table.rows} rows but holds ${written[table.name] ?? 0}`,
        );
      }
      rows += table.rows;
    }
    return facts.sequences;
  });
  return { rows, next: await reader.nextAny() };
}

/**
 * One entry of the archive after the database: a repository's file (to the restorer), a file of
 * the data directory (written if it is one a dump carries, 0600 in 0700 directories), or skipped.
 */
async function restoreEntry(
  entry: Entry,
  dataDir: string,
  restorer: RepositoryRestorer,
  skip: (path: string, reason: string) => void,
): Promise<boolean> {
  let inRepos: string | undefined;
  let inFiles: string | undefined;
  try {
    inRepos = entryPathUnder(entry.path, REPOSITORIES);
    inFiles = inRepos === undefined ? entryPathUnder(entry.path, FILES) : undefined;
  } catch (error) {
    skip(entry.path, error instanceof Invalid ? 'an unsafe path' : String(error));
    return false;
  }
  if (inRepos !== undefined) {
    await restorer.add({
      name: entry.path,
      relative: inRepos,
      type: entry.type,
      content: entry.content,
    });
    return entry.type === 'file';
  }
  if (inFiles === undefined) {
    if (entry.type !== 'directory' || (entry.path !== REPOSITORIES && entry.path !== FILES)) {
      skip(entry.path, 'outside the places of a Kiln dump');
    }
    return false;
  }
  if (entry.type === 'directory') return false;
  if (entry.type !== 'file') {
    skip(entry.path, `a ${entry.type}, not a regular file`);
    return false;
  }
  if (!isCarriedFile(inFiles)) {
    skip(entry.path, 'not a file a dump carries (the database, the lock, repositories)');
    return false;
  }
  const target = path.join(dataDir, ...inFiles.split('/'));
  const clash = await writeNewPrivateFile(target, entry.content).then(() => undefined, clashOf);
  if (clash) skip(entry.path, clash);
  return clash === undefined;
}

/**
 * Restores a dump (see dump-layout.ts) into a new instance: an empty data directory and an empty
 * database, on either engine whatever engine the dump came from. The schema is rebuilt to the
 * dump's migration, the rows go in in one transaction, then the schema is migrated to this
 * version's latest. Only data comes back: each repository is made afresh with Kiln's config and
 * hooks and given the archive's objects, refs and HEAD alone (repository-restore.ts); what else
 * the archive holds, in a repository or not, is skipped and reported in the summary.
 */
export async function restoreDump(target: RestoreTarget, source: Chunks): Promise<RestoreSummary> {
  const dataDir = path.resolve(target.dataDir);
  if (!target.databaseUrl) {
    const file = path.join(dataDir, 'kiln.db');
    if (await pathExists(file)) {
      throw new Conflict(`${file} exists: restore into a new, empty data directory`);
    }
  }
  const database = await openDatabase({ databaseUrl: target.databaseUrl, dataDir });
  try {
    await requireEmptyTarget({ ...target, dataDir }, database);
    const reader = new EntryReader(source);
    const first = await reader.next();
    if (first?.path !== MANIFEST) throw new Invalid('this is not a Kiln dump (no manifest first)');
    const manifest = parseManifest(
      (await buffer(first.content)).toString('utf8'),
      knownMigrations(),
    );
    const { rows, next } = await restoreDatabase(database, reader, manifest);
    await migrate(database);
    const restorer = new RepositoryRestorer(path.join(dataDir, 'repositories'));
    const skippedHere: SkippedPath[] = [];
    let skippedCount = 0;
    const skip = (entryPath: string, reason: string) => {
      skippedCount += 1;
      if (skippedHere.length < 100) skippedHere.push({ path: entryPath, reason });
    };
    let files = 0;
    for (let entry = next; entry; entry = await reader.nextAny()) {
      if (await restoreEntry(entry, dataDir, restorer, skip)) files += 1;
    }
    await restorer.finish();
    // Anything the directory held before (or a wider directory made by hand) made private too.
    await tightenDataDir(dataDir);
    const skipped = {
      paths: [...skippedHere, ...restorer.skipped.paths],
      count: skippedCount + restorer.skipped.count,
    };
    return { manifest, rows, repositories: restorer.repositories.length, files, skipped };
  } finally {
    await database.close();
  }
}
