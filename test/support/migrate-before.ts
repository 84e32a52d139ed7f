import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type Database, knownMigrations, migrateTo, openDatabase } from '../../src/db/database.ts';
import { createTestDatabase } from './database.ts';

/**
 * Applies the migrations that come before `name`, as an installation made before it has: rows
 * written then are what that migration finds. `migrate(database)` applies the rest.
 */
export async function migrateBefore(database: Database, name: string): Promise<void> {
  const names = knownMigrations();
  const index = names.indexOf(name);
  if (index < 1) throw new Error(`no migration named ${name} after the first`);
  await migrateTo(database, names[index - 1] as string);
}

/**
 * An empty database of its own on the configured engine (SQLite in a temporary directory, or a
 * fresh PostgreSQL database when KILN_TEST_DATABASE_URL names a server), not migrated.
 */
export async function scratchDatabase(
  prefix: string,
): Promise<{ database: Database; dispose(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const testDatabase = await createTestDatabase();
  const database = await openDatabase({ databaseUrl: testDatabase.url, dataDir });
  return {
    database,
    async dispose() {
      await database.close();
      await testDatabase.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A scratch database for the file's tests, made before them and removed after: `ready` receives
 * it once it is open.
 */
export function useScratchDatabase(prefix: string, ready: (database: Database) => void): void {
  let dispose: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const scratch = await scratchDatabase(prefix);
    dispose = scratch.dispose;
    ready(scratch.database);
  });
  afterAll(async () => {
    await dispose?.();
  });
}

/** An account row with the columns the first migrations made (later ones add defaults). */
export async function insertOwner(
  database: Database,
  handle: string,
  kind: 'user' | 'org' = 'user',
): Promise<string> {
  const id = crypto.randomUUID();
  await database.db
    .insertInto('users')
    .values({
      id,
      handle,
      handle_lower: handle.toLowerCase(),
      kind,
      email: kind === 'user' ? `${handle}@example.com` : null,
      email_lower: kind === 'user' ? `${handle}@example.com` : null,
      full_name: '',
      description: '',
      password_hash: null,
      created_at: 0,
      updated_at: 0,
    })
    .execute();
  return id;
}

/** Repository rows of `ownerId`, as the first migrations made them; their ids, in order. */
export async function insertRepos(
  database: Database,
  ownerId: string,
  names: readonly string[],
): Promise<string[]> {
  const rows = names.map((name) => ({
    id: crypto.randomUUID(),
    owner_id: ownerId,
    name,
    name_lower: name.toLowerCase(),
    description: '',
    private: false,
    parent_id: null,
    pull_counter: 0,
    created_at: 0,
    updated_at: 0,
  }));
  await database.db.insertInto('repositories').values(rows).execute();
  return rows.map((row) => row.id);
}

/** A job row of `runId` with the columns the first CI migrations made, and `facts` over them. */
export async function insertJob(
  database: Database,
  runId: string,
  facts: {
    readonly status: 'blocked' | 'pending' | 'running' | 'success';
    readonly at: number;
    readonly tokenHash?: string;
  },
): Promise<void> {
  const running = facts.status === 'running';
  await database.db
    .insertInto('ci_tasks')
    .values({
      run_id: runId,
      name: 'build',
      runs_on: '[]',
      needs: '[]',
      outputs: '{}',
      job_key: 'build',
      payload: '{}',
      runner_id: null,
      status: facts.status,
      log_rows: 0,
      deadline_at: null,
      created_at: facts.at,
      started_at: running ? facts.at : null,
      stopped_at: null,
      token_hash: facts.tokenHash ?? null,
      heartbeat_at: running ? facts.at : null,
    })
    .execute();
}
