import { createWriteStream } from 'node:fs';
import { access, chmod, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import {
  type Database,
  knownMigrations,
  migrate,
  migrateTo,
  openDatabase,
} from '../../db/database.ts';
import { hasAnyTable } from '../../db/schema-facts.ts';
import { type Row, writeSnapshot } from '../../db/table-dump.ts';
import { ensureHooks } from '../../git/hooks.ts';
import { RepoPaths } from '../../git/repo-paths.ts';
import { prepareRestoredRepository } from '../../git/repository-dump.ts';
import type { Chunks, TarEntry } from '../../lib/tar-format.ts';
import { readTar } from '../../lib/tar-reader.ts';
import { Conflict, Invalid } from '../errors.ts';
import {
  DATABASE_FACTS,
  type DatabaseFacts,
  type DumpManifest,
  entryPathUnder,
  FILES,
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
};

type Entry = TarEntry & { content: AsyncIterable<Buffer> };

async function isEmptyDir(dir: string): Promise<boolean> {
  const entries = await readdir(dir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  });
  return entries.length === 0;
}

/** A restore writes only into a new instance: it never merges into, or replaces, a live one. */
async function requireEmptyTarget(target: RestoreTarget, database: Database): Promise<void> {
  if (await hasAnyTable(database)) {
    throw new Conflict('the database is not empty: restore into a new, empty database');
  }
  const repositories = path.join(target.dataDir, 'repositories');
  if (!(await isEmptyDir(repositories))) {
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

/** Reads the entries of the archive one at a time, skipping directories. */
class EntryReader {
  readonly #entries: AsyncIterator<Entry>;

  constructor(source: Chunks) {
    this.#entries = readTar(source);
  }

  async next(): Promise<Entry | undefined> {
    for (;;) {
      const next = await this.#entries.next();
      if (next.done) return undefined;
      if (next.value.type === 'file') return next.value;
    }
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
  return { rows, next: await reader.next() };
}

async function writeEntry(entry: Entry, target: string): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  await pipeline(entry.content, createWriteStream(target, { flags: 'wx' }));
  await chmod(target, entry.mode & 0o777);
}

/**
 * Restores a dump (see dump-layout.ts) into a new instance: an empty data directory and an empty
 * database, on either engine whatever engine the dump came from. The schema is rebuilt to the
 * dump's migration, the rows go in in one transaction, then the schema is migrated to this
 * version's latest; repositories get this version's hooks.
 */
export async function restoreDump(target: RestoreTarget, source: Chunks): Promise<RestoreSummary> {
  const dataDir = path.resolve(target.dataDir);
  if (!target.databaseUrl) {
    const file = path.join(dataDir, 'kiln.db');
    if (
      await access(file).then(
        () => true,
        () => false,
      )
    ) {
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
    const root = path.join(dataDir, 'repositories');
    const repositories = new Set<string>();
    let files = 0;
    for (let entry = next; entry; entry = await reader.next()) {
      const inRepos = entryPathUnder(entry.path, REPOSITORIES);
      if (inRepos !== undefined) {
        const [owner, name] = inRepos.split('/');
        if (!owner || !name?.endsWith('.git')) throw new Invalid(`unexpected entry ${entry.path}`);
        repositories.add(`${owner}/${name}`);
        await writeEntry(entry, path.join(root, inRepos));
      } else {
        const inFiles = entryPathUnder(entry.path, FILES);
        if (inFiles === undefined) throw new Invalid(`unexpected entry ${entry.path}`);
        await writeEntry(entry, path.join(dataDir, inFiles));
      }
      files += 1;
    }
    const paths = new RepoPaths(root);
    for (const dir of repositories) {
      const [owner, name] = dir.split('/') as [string, string];
      await prepareRestoredRepository(path.join(root, dir));
      await ensureHooks(paths.resolve({ owner, name: name.slice(0, -'.git'.length) }));
    }
    return { manifest, rows, repositories: repositories.size, files };
  } finally {
    await database.close();
  }
}
