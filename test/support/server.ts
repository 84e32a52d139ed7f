import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type App, createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/load.ts';
import { buildServer } from '../../src/http/server.ts';
import { createTestDatabase, seedMigratedSqlite } from './database.ts';
import { Factories } from './factories.ts';

export type TestServer = {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly app: App;
  readonly server: FastifyInstance;
  readonly dataDir: string;
  readonly make: Factories;
  close(): Promise<void>;
};

/**
 * Boots the real Kiln (real database, real HTTP on 127.0.0.1, port 0) in a fresh data dir.
 * `env` takes SERVICE_* settings exactly as an operator would write them.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kiln-test-'));
  const database = await createTestDatabase({ migrated: true });
  if (database.url === undefined) await seedMigratedSqlite(join(dataDir, 'data'));
  const configFile = join(dataDir, 'empty.toml');
  writeFileSync(configFile, '');
  const config = loadConfig({
    file: configFile,
    env: {
      SERVICE_DATA_DIR: join(dataDir, 'data'),
      SERVICE_HTTP_HOST: '127.0.0.1',
      SERVICE_HTTP_PORT: '0',
      SERVICE_LOG_LEVEL: process.env.KILN_TEST_LOG_LEVEL ?? 'silent',
      ...(database.url ? { SERVICE_DATABASE_URL: database.url } : {}),
      ...env,
    },
  });
  const app = await createApp(config);
  const server = await buildServer(app);
  await server.listen({ host: '127.0.0.1', port: config.http.port });
  const address = server.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('server did not bind');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    app,
    server,
    dataDir,
    make: new Factories(app),
    async close() {
      await server.close();
      await app.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
