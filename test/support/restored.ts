import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import { buildServer } from '../../src/http/server.ts';
import type { TestDatabase } from './database.ts';
import type { GitClient } from './git.ts';
import type { TestServer } from './server.ts';

/** A Kiln serving in this process from an existing data directory and database. */
export type RestoredInstance = { url: string; app: App; close(): Promise<void> };

/** Serves what a restore produced (its data directory, and its database on PostgreSQL). */
export async function serveRestored(
  dataDir: string,
  databaseUrl: string | undefined,
): Promise<RestoredInstance> {
  const file = join(dataDir, '..', 'empty.toml');
  writeFileSync(file, '');
  const config = loadConfig({
    file,
    env: {
      SERVICE_DATA_DIR: dataDir,
      SERVICE_HTTP_HOST: '127.0.0.1',
      SERVICE_HTTP_PORT: '0',
      SERVICE_LOG_LEVEL: 'silent',
      ...(databaseUrl ? { SERVICE_DATABASE_URL: databaseUrl } : {}),
    },
  });
  const app = await createApp(config);
  const server = await buildServer(app);
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (typeof address !== 'object' || !address) throw new Error('not bound');
  return {
    url: `http://127.0.0.1:${address.port}`,
    app,
    close: async () => {
      await server.close();
      await app.close();
    },
  };
}

/** SERVICE_* settings for `runCli` against a data directory and, on PostgreSQL, a database. */
export function envFor(dataDir: string, databaseUrl: string | undefined): Record<string, string> {
  return {
    SERVICE_DATA_DIR: dataDir,
    SERVICE_LOG_LEVEL: 'silent',
    ...(databaseUrl ? { SERVICE_DATABASE_URL: databaseUrl } : {}),
  };
}

/** What a dump-and-restore suite leaves: its source instance, git client, databases, scratch. */
export type SuiteLeftovers = {
  readonly source: TestServer | undefined;
  readonly git: GitClient | undefined;
  readonly databases: readonly TestDatabase[];
  readonly scratch: string | undefined;
};

/** Stops and removes everything a dump-and-restore suite made. */
export async function removeLeftovers(left: SuiteLeftovers): Promise<void> {
  await left.source?.close();
  await left.git?.dispose();
  for (const database of left.databases) await database.drop();
  if (left.scratch) rmSync(left.scratch, { recursive: true, force: true });
}
