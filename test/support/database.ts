import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The suite runs on SQLite by default. When KILN_TEST_DATABASE_URL names a PostgreSQL server
 * (a maintenance database such as `postgres://…/postgres`), every test server gets a fresh
 * database of its own there, dropped again on close.
 */
export const postgresAdminUrl = process.env.KILN_TEST_DATABASE_URL || undefined;

export type TestDatabase = { url: string | undefined; drop(): Promise<void> };

export async function createTestDatabase(): Promise<TestDatabase> {
  if (!postgresAdminUrl) return { url: undefined, drop: async () => {} };
  const name = `kiln_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      const client = new pg.Client({ connectionString: postgresAdminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
