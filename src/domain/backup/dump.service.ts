import path from 'node:path';

import type { Database } from '../../db/database.ts';
import { appliedMigrations } from '../../db/schema-facts.ts';
import { encodeValue, type Row, readSnapshot } from '../../db/table-dump.ts';
import {
  listRepositoryDirs,
  repositoryFiles,
  snapshotRepositoryRefs,
} from '../../git/repository-dump.ts';
import { type WalkedFile, walkFiles } from '../../lib/file-walk.ts';
import { type TarSink, TarWriter } from '../../lib/tar-writer.ts';
import { type RepoLeaseClaims, takeLease } from '../repos/repo-leases.ts';
import {
  DATABASE,
  DATABASE_FACTS,
  DUMP_FORMAT,
  type DumpManifest,
  FILES,
  isCarriedFile,
  MANIFEST,
  REPOSITORIES,
  ROOT,
  tableEntry,
} from './dump-layout.ts';

export type DumpSources = {
  readonly database: Database;
  /** Housekeeping's leases, so a repository is not copied while it is being repacked. */
  readonly leases: RepoLeaseClaims;
  readonly dataDir: string;
  readonly repositoriesRoot: string;
  readonly kilnVersion: string;
};

export type DumpSummary = {
  readonly tables: number;
  readonly rows: number;
  readonly repositories: number;
  readonly files: number;
  readonly bytes: number;
};

/** How many repositories' refs are read at once (each read is one short git process). */
const REF_READERS = 4;

/** Rows are written to the archive in chunks of about this many bytes. */
const ROW_CHUNK = 256 * 1024;

/** Whether a row holds a value JSON cannot carry as it is (most rows hold none). */
function needsEncoding(row: Row): boolean {
  for (const key in row) {
    const value = row[key];
    if (typeof value === 'bigint' || value instanceof Uint8Array) return true;
  }
  return false;
}

function encodeRow(row: Row): Row {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, encodeValue(value)]));
}

async function* jsonLines(rows: AsyncIterable<Row>, counted: { rows: number }) {
  let pending: string[] = [];
  let size = 0;
  for await (const row of rows) {
    const line = `${JSON.stringify(needsEncoding(row) ? encodeRow(row) : row)}\n`;
    pending.push(line);
    size += line.length;
    counted.rows += 1;
    if (size >= ROW_CHUNK) {
      yield Buffer.from(pending.join(''));
      pending = [];
      size = 0;
    }
  }
  if (pending.length > 0) yield Buffer.from(pending.join(''));
}

/**
 * Writes the database's rows. The tar format needs each entry's size before its bytes, so a
 * table is gathered in memory first; the rows of the largest table bound what a dump holds.
 */
async function writeDatabase(
  tar: TarWriter,
  database: Database,
): Promise<{ rows: number; tables: number }> {
  const total = { rows: 0 };
  let index = 0;
  const facts = await readSnapshot(database, async (table, rows) => {
    const counted = { rows: 0 };
    const chunks: Buffer[] = [];
    for await (const chunk of jsonLines(rows, counted)) chunks.push(chunk);
    const size = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    index += 1;
    await tar.fileFrom(tableEntry(index, table), size, chunks);
    total.rows += counted.rows;
    return counted.rows;
  });
  await tar.file(
    DATABASE_FACTS,
    `${JSON.stringify({ tables: facts.tables, sequences: facts.sequences }, null, 2)}\n`,
  );
  return { rows: total.rows, tables: facts.tables.length };
}

function copyFile(tar: TarWriter, entry: string, file: WalkedFile) {
  return tar.fileFromDisk(entry, file.absolute, file.size, file.mode, file.mtimeMs);
}

/** Longest a dump holds one repository, and waits for a run to finish there. */
const COPY_LEASE = { holdMs: 6 * 60 * 60_000, waitMs: 30 * 60_000 } as const;

/**
 * Writes every repository: the refs of all of them first, then their files, so that every ref
 * in the dump has its objects (see repository-dump.ts). Housekeeping deletes packs once it has
 * rewritten them and prunes old unreachable objects, so beside a dump it could delete a pack the
 * copy listed, or an object a dumped ref still names: each repository is under its housekeeping
 * lease from before its refs are read until its last file is copied.
 */
async function writeRepositories(
  tar: TarWriter,
  root: string,
  leases: RepoLeaseClaims,
): Promise<{ repositories: number; files: number }> {
  const dirs = await listRepositoryDirs(root);
  const refs = new Map<string, string>();
  const releases = new Map<string, () => Promise<void>>();
  let next = 0;
  const reader = async () => {
    for (let i = next++; i < dirs.length; i = next++) {
      const dir = dirs[i]!;
      const key = dir.slice(0, -'.git'.length);
      const release = await takeLease(leases, key, COPY_LEASE);
      if (!release) throw new Error(`repository ${key} stayed under maintenance; dump again later`);
      releases.set(dir, release);
      refs.set(dir, await snapshotRepositoryRefs(path.join(root, dir)));
    }
  };
  let files = 0;
  try {
    await Promise.all(Array.from({ length: REF_READERS }, reader));
    for (const dir of dirs) {
      const prefix = `${REPOSITORIES}/${dir}`;
      await tar.directory(prefix);
      await tar.file(`${prefix}/packed-refs`, refs.get(dir)!);
      for await (const file of repositoryFiles(path.join(root, dir))) {
        const entry = `${prefix}/${file.relative}`;
        if (file.isDirectory) {
          await tar.directory(entry, file.mtimeMs);
        } else if (file.size === 0) {
          await tar.file(entry, Buffer.alloc(0), file.mode);
        } else {
          await copyFile(tar, entry, file);
        }
        files += 1;
      }
      await releases.get(dir)?.();
      releases.delete(dir);
    }
  } finally {
    await Promise.all([...releases.values()].map((release) => release()));
  }
  return { repositories: dirs.length, files };
}

/**
 * Every other file of the data directory (what later features keep there), as it is now: those
 * `isCarriedFile` names, so never the database files, the serve lock or a repository's file.
 */
async function writeOtherFiles(tar: TarWriter, dataDir: string, skip: string): Promise<number> {
  let files = 0;
  const carried = (relative: string) =>
    path.join(dataDir, relative) !== skip && isCarriedFile(relative);
  for await (const file of walkFiles(dataDir, carried)) {
    const entry = `${FILES}/${file.relative}`;
    if (file.isDirectory) {
      await tar.directory(entry, file.mtimeMs);
      continue;
    }
    if (file.size === 0) await tar.file(entry, Buffer.alloc(0), file.mode);
    else await copyFile(tar, entry, file);
    files += 1;
  }
  return files;
}

/**
 * Writes a dump of a whole instance to `out`: the database as one consistent snapshot, then
 * every repository, then the data directory's other files. The database is read first, so the
 * repositories are at least as new as it: a pull recorded as open may have been merged since,
 * but nothing the database names is missing. Does not end `out`.
 */
export async function writeDump(sources: DumpSources, out: TarSink): Promise<DumpSummary> {
  const tar = new TarWriter(out);
  const manifest: DumpManifest = {
    format: DUMP_FORMAT,
    kilnVersion: sources.kilnVersion,
    createdAt: new Date().toISOString(),
    engine: sources.database.dialect,
    migrations: await appliedMigrations(sources.database),
  };
  await tar.directory(ROOT);
  await tar.file(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  await tar.directory(DATABASE);
  const database = await writeDatabase(tar, sources.database);
  await tar.directory(REPOSITORIES);
  const repos = await writeRepositories(
    tar,
    path.resolve(sources.repositoriesRoot),
    sources.leases,
  );
  await tar.directory(FILES);
  const files = await writeOtherFiles(
    tar,
    path.resolve(sources.dataDir),
    path.resolve(sources.repositoriesRoot),
  );
  await tar.finish();
  return {
    tables: database.tables,
    rows: database.rows,
    repositories: repos.repositories,
    files: repos.files + files,
    bytes: tar.bytes,
  };
}
