import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { migrate, openDatabase } from '../../src/db/database.ts';

/**
 * The suite runs on SQLite by default. When KILN_TEST_DATABASE_URL names a PostgreSQL server
 * (a maintenance database such as `postgres://…/postgres`), every test server gets a fresh
 * database of its own there, dropped again on close.
 */
export const postgresAdminUrl = process.env.KILN_TEST_DATABASE_URL || undefined;

export type TestDatabase = { url: string | undefined; drop(): Promise<void> };

/** Whether the database starts empty (a migration suite) or with every migration applied. */
export type TestDatabaseOptions = { readonly migrated?: boolean };

const MIGRATIONS_DIR = resolve(import.meta.dirname, '../../src/db/migrations');
/** Any fixed key: it keeps two test files from building the same template at once. */
const TEMPLATE_LOCK = 4_404_404;

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

/**
 * Connections to the maintenance database for creating and dropping test databases, kept between
 * the servers a test process starts (a new connection is a new PostgreSQL backend each time) and
 * closed once idle, so nothing here keeps a test process alive.
 */
let adminPool: pg.Pool | undefined;
function admins(): pg.Pool {
  if (adminPool === undefined) {
    adminPool = new pg.Pool({
      connectionString: postgresAdminUrl,
      max: 2,
      idleTimeoutMillis: 2_000,
      allowExitOnIdle: true,
    });
    // An idle connection the server drops (it is stopped when the run ends) is simply replaced.
    adminPool.on('error', () => {});
  }
  return adminPool;
}

function databaseUrl(name: string): string {
  const url = new URL(postgresAdminUrl as string);
  url.pathname = `/${name}`;
  return url.href;
}

/**
 * The name of a database with every migration applied and nothing else, made once per server
 * and migration set: copying it (`create database … template`) takes a fraction of the time
 * migrating a fresh database takes, which every test server did before. Named by a hash of the
 * migrations' sources, so a changed migration gets a template of its own; built under another
 * name and renamed when done, so a run stopped half-way never leaves a half-migrated template.
 */
let template: Promise<string> | undefined;
function migratedTemplate(): Promise<string> {
  template ??= withAdmin(async (admin) => {
    const hash = createHash('sha256');
    for (const file of readdirSync(MIGRATIONS_DIR).sort()) {
      hash.update(file).update(readFileSync(join(MIGRATIONS_DIR, file)));
    }
    const name = `kiln_template_${hash.digest('hex').slice(0, 16)}`;
    // Session-level: held until this connection ends, whichever file builds the template.
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      const building = `${name}_${randomBytes(4).toString('hex')}`;
      await admin.query(`create database ${building}`);
      const dataDir = mkdtempSync(join(tmpdir(), 'kiln-template-'));
      try {
        const database = await openDatabase({ databaseUrl: databaseUrl(building), dataDir });
        try {
          await migrate(database);
        } finally {
          await database.close();
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
      await admin.query(`alter database ${building} rename to ${name}`);
    }
    return name;
  });
  return template;
}

/** A database of the test's own: on SQLite none (the server makes its file), else a fresh one. */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  if (!postgresAdminUrl) return { url: undefined, drop: async () => {} };
  const from = options.migrated === true ? await migratedTemplate() : undefined;
  const name = `kiln_test_${randomBytes(6).toString('hex')}`;
  await admins().query(`create database ${name}${from === undefined ? '' : ` template ${from}`}`);
  return {
    url: databaseUrl(name),
    drop: async () => {
      await admins().query(`drop database if exists ${name} with (force)`);
    },
  };
}

/**
 * The SQLite counterpart of the template: one database file migrated per test process, copied
 * into a new server's data directory (`<dataDir>/kiln.db`, where the server opens it), so a
 * server starts with its migrations already applied rather than running them all again.
 */
let sqliteTemplate: Promise<string> | undefined;
function migratedSqliteFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kiln-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const database = await openDatabase({ databaseUrl: undefined, dataDir: dir });
    try {
      await migrate(database);
    } finally {
      await database.close();
    }
    return join(dir, 'kiln.db');
  })();
  return sqliteTemplate;
}

/** Puts a migrated SQLite database where a server with this data directory will open it. */
export async function seedMigratedSqlite(dataDir: string): Promise<void> {
  const file = await migratedSqliteFile();
  // As the server would make it: the data directory is private to the account it runs as.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  copyFileSync(file, join(dataDir, 'kiln.db'));
}
